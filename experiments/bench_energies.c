/* bench_energies.c — cost of one whole-model energy + gradient + PSD-projected Hessian
 * assembly (weft_assembly_run, lib/linalg/weft_sparse.h), in elements per second:
 *   - a 256 × 256 cloth with the StVK membrane and dihedral bending (triangles + hinges);
 *   - the same cloth with weft's canonical model, mass-spring + dihedral bending, and with
 *     dihedral bending alone (so ns_per_element of that case is the cost of one hinge);
 *   - a 42 × 20 × 10-cube block of 50 400 tetrahedra with Stable Neo-Hookean;
 * each with 1 and 2 threads, for the analytic projection (Smith, de Goes, Kim 2019) and,
 * with 1 thread, for LAPACKE eigenvalue clamping, so the two projections can be weighed.
 * The state is the rest shape moved by a fixed pseudo-random displacement (a few percent
 * of an edge), so every element Hessian is generic rather than the rest one. Each figure
 * is the best of REPEATS timed calls after one warm-up call; building the model and the
 * assembly (pattern, colouring) is not timed. Writes <out>/bench_energies.tsv, renamed
 * into place when complete. */
#include "bench.h"

#include "weft_energies.h"
#include "weft_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_energies [--out DIR] [--set SECTION.KEY=VAL]...\n"
    "Times one energy + gradient + projected-Hessian assembly of a 256^2 cloth (StVK\n"
    "membrane + dihedral bending; mass-spring + dihedral bending; dihedral bending alone)\n"
    "and of a ~50k-tetrahedron block (Stable Neo-Hookean),\n"
    "with 1 and 2 threads; writes DIR/bench_energies.tsv (default results/).\n"
    "  --set applies to both models (e.g. --set material.poisson_ratio=0.45)\n";

enum { REPEATS = 5 };

static const weft_bench_column columns[] = {
    {"case", "%s", "case", "%-24s"},
    {"vertices", "%ld", "vertices", " %9ld"},
    {"elements", "%ld", "elements", " %9ld"},
    {"terms", "%s", NULL, NULL},
    {"threads", "%ld", "threads", " %8ld"},
    {"projection", "%s", "psd", " %-9s"},
    {"ms_per_assembly", "%.3f", "ms/assembly", " %14.2f"},
    {"elements_per_s", "%.0f", "elements/s", " %14.0f"},
    {"ns_per_element", "%.1f", "ns/elem", " %10.1f"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* One benchmark case: a scene and the overrides that make it. */
typedef struct bench_case {
    const char *name;
    const char *scene;
    const char *set[8];
} bench_case;

static const bench_case cases[] = {
    {"cloth_256_stvk_bending",
     "hanging_cloth",
     {"mesh.nx=256", "mesh.ny=256", "material.membrane=stvk",
      "material.bending=dihedral_bending", NULL}},
    {"cloth_256_spring_bending",
     "hanging_cloth",
     {"mesh.nx=256", "mesh.ny=256", "material.membrane=mass_spring",
      "material.bending=dihedral_bending", NULL}},
    {"cloth_256_bending_only",
     "hanging_cloth",
     {"mesh.nx=256", "mesh.ny=256", "material.membrane=none",
      "material.bending=dihedral_bending", NULL}},
    {"tet_block_snh",
     "tet_beam",
     {"mesh.size=2.1,1,0.5", "mesh.cells=42,20,10", "material.volume=stable_neo_hookean",
      NULL}},
};

static long count_elements(const weft_model *m) {
    long n = 0;
    for (int t = 0; t < m->nterms; t++) n += m->terms[t].n;
    return n;
}

/* One assembly to time. */
typedef struct assembly_run {
    weft_assembly *as;
    const weft_model *m;
    double *grad;
    weft_hessian_mode mode;
    int threads;
} assembly_run;

/* One assembly (a weft_bench_fn): figure its wall time, s; fails on a non-finite energy. */
static int time_assembly(void *user, double *out) {
    assembly_run *a = user;
    double t0 = weft_now();
    double E = weft_assembly_run(a->as, a->m, a->m->x, a->mode, a->grad, a->threads);
    out[0] = weft_now() - t0;
    if (!isfinite(E)) {
        weft_error err;
        weft_assembly_check(a->as, &err);
        fprintf(stderr, "error: %s\n", err.msg);
        return WEFT_BENCH_FAIL;
    }
    return WEFT_BENCH_MORE;
}

int main(int argc, char **argv) {
    weft_cli base;
    weft_bench_parse(argc, argv, &base, usage, 8);
    weft_bench_table t;
    if (weft_bench_open(&t, base.out, "bench_energies.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "bench_energies: best of %d assemblies after 1 warm-up; state = "
                       "rest + 2%% edge-length noise", REPEATS);
    weft_bench_header(&t);
    int rc = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        weft_cli cli = base;
        cli.scene = cases[c].scene;
        for (int k = 0; cases[c].set[k]; k++) cli.set[cli.nset++] = cases[c].set[k];
        for (int k = 0; k < base.nset; k++) cli.set[cli.nset++] = base.set[k];
        weft_model m;
        weft_config *cfg = NULL;
        weft_error err;
        if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: %s: %s\n", cases[c].name, err.msg);
            rc = 1;
            continue;
        }
        weft_cli_perturb(&m, 0.02, 12345); /* ±2% of the mean edge, fixed seed */
        weft_assembly *as = weft_assembly_create(&m, &err);
        double *grad = malloc(3 * (size_t)m.n * sizeof *grad);
        if (!as || !grad) {
            fprintf(stderr, "error: %s: %s\n", cases[c].name, as ? "out of memory" : err.msg);
            free(grad);
            weft_assembly_free(&as);
            weft_model_free(&m);
            weft_config_free(&cfg);
            rc = 1;
            continue;
        }
        char terms[256] = "";
        for (int k = 0; k < m.nterms; k++)
            snprintf(terms + strlen(terms), sizeof terms - strlen(terms), "%s%s/%d",
                     k ? "+" : "", m.terms[k].type->name, m.terms[k].type->kind);
        long ne = count_elements(&m);
        struct {
            weft_hessian_mode mode;
            const char *name;
            int threads;
        } runs[] = {{WEFT_HESSIAN_ANALYTIC, "analytic", 1},
                    {WEFT_HESSIAN_ANALYTIC, "analytic", 2},
                    {WEFT_HESSIAN_CLAMP, "clamp", 1}};
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            assembly_run a = {as, &m, grad, runs[r].mode, runs[r].threads};
            weft_bench_stats st;
            weft_bench_plan plan = weft_bench_repeats(1, REPEATS);
            if (weft_bench_measure(&plan, 1, time_assembly, &a, &st) != 0) {
                rc = 1;
                break;
            }
            double s = st.min[0];
            weft_bench_value row[NCOLUMNS] = {
                weft_bench_text(cases[c].name), weft_bench_int(m.n), weft_bench_int(ne),
                weft_bench_text(terms), weft_bench_int(runs[r].threads),
                weft_bench_text(runs[r].name), weft_bench_num(1e3 * s), weft_bench_num(ne / s),
                weft_bench_num(1e9 * s / ne)};
            weft_bench_row(&t, row);
        }
        free(grad);
        weft_assembly_free(&as);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    return weft_bench_close(&t, rc != 0 ? "a case failed" : NULL);
}
