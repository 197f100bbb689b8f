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
#include "cli.h"

#include "weft_energies.h"
#include "weft_sparse.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
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

/* Best wall time of REPEATS assemblies (after a warm-up), s; NAN on failure. */
static double time_assembly(weft_assembly *as, const weft_model *m, double *grad,
                            weft_hessian_mode mode, int threads) {
    double E = weft_assembly_run(as, m, m->x, mode, grad, threads);
    if (!isfinite(E)) {
        weft_error err;
        weft_assembly_check(as, &err);
        fprintf(stderr, "error: %s\n", err.msg);
        return NAN;
    }
    double best = INFINITY;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = weft_now();
        weft_assembly_run(as, m, m->x, mode, grad, threads);
        best = fmin(best, weft_now() - t0);
    }
    return best;
}

int main(int argc, char **argv) {
    weft_cli base;
    weft_cli_parse(argc, argv, &base, usage);
    if (base.nset > 50) {
        fprintf(stderr, "error: too many --set options for bench_energies\n");
        return 2;
    }
    if (weft_mkdirs(base.out) != 0) return 1;
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/bench_energies.tsv", base.out);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f, "# bench_energies: best of %d assemblies after 1 warm-up; state = rest + 2%% "
               "edge-length noise\n", REPEATS);
    fprintf(f, "case\tvertices\telements\tterms\tthreads\tprojection\tms_per_assembly\t"
               "elements_per_s\tns_per_element\n");
    printf("%-24s %9s %9s %8s %-9s %14s %14s %10s\n", "case", "vertices", "elements",
           "threads", "psd", "ms/assembly", "elements/s", "ns/elem");
    int rc = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        weft_cli cli = base;
        cli.scene = cases[c].scene;
        for (int k = 0; cases[c].set[k]; k++) cli.set[cli.nset++] = cases[c].set[k];
        for (int k = 0; k < base.nset; k++) cli.set[cli.nset++] = base.set[k];
        weft_model m;
        weft_error err;
        if (weft_cli_build(&cli, &m, &err) != WEFT_OK) {
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
            rc = 1;
            continue;
        }
        char terms[256] = "";
        for (int t = 0; t < m.nterms; t++)
            snprintf(terms + strlen(terms), sizeof terms - strlen(terms), "%s%s/%d",
                     t ? "+" : "", m.terms[t].type->name, m.terms[t].type->kind);
        long ne = count_elements(&m);
        struct {
            weft_hessian_mode mode;
            const char *name;
            int threads;
        } runs[] = {{WEFT_HESSIAN_ANALYTIC, "analytic", 1},
                    {WEFT_HESSIAN_ANALYTIC, "analytic", 2},
                    {WEFT_HESSIAN_CLAMP, "clamp", 1}};
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            double s = time_assembly(as, &m, grad, runs[r].mode, runs[r].threads);
            if (!isfinite(s)) {
                rc = 1;
                break;
            }
            fprintf(f, "%s\t%d\t%ld\t%s\t%d\t%s\t%.3f\t%.0f\t%.1f\n", cases[c].name, m.n, ne, terms,
                    runs[r].threads, runs[r].name, 1e3 * s, ne / s, 1e9 * s / ne);
            printf("%-24s %9d %9ld %8d %-9s %14.2f %14.0f %10.1f\n", cases[c].name, m.n, ne,
                   runs[r].threads, runs[r].name, 1e3 * s, ne / s, 1e9 * s / ne);
            fflush(stdout);
        }
        free(grad);
        weft_assembly_free(&as);
        weft_model_free(&m);
    }
    if (rc != 0) {
        fprintf(f, "# status=incomplete reason=a case failed\n");
        fclose(f);
        fprintf(stderr, "error: a case failed; partial results left in %s\n", tmp);
        return rc;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return 1;
    }
    printf("\nwrote %s\n", path);
    return 0;
}
