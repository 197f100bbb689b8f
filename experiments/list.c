/* list.c — prints every registered solver, post-step stage, energy, PBD constraint type
 * and built-in scene, one per line: kind, name, paper, summary (tab-separated, for
 * scripts); then every plug-in's settings (from their tables): "setting", the plug-in,
 * section.key, and its type, unit, range, default and doc. */
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <stdio.h>
#include <string.h>

/* What the elements of a kind are, for the energy lines. */
static const char *kind_name(weft_element_kind kind) {
    switch (kind) {
    case WEFT_ELEM_EDGE: return "edge";
    case WEFT_ELEM_TRIANGLE: return "triangle";
    case WEFT_ELEM_HINGE: return "hinge";
    case WEFT_ELEM_TET: return "tetrahedron";
    case WEFT_ELEM_SURFACE: return "surface";
    case WEFT_ELEM_VERTEX_FACE: return "vertex-face contact";
    case WEFT_ELEM_EDGE_EDGE: return "edge-edge contact";
    }
    return "unknown";
}

int main(int argc, char **argv) {
    if (argc > 1) {
        if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
            puts("usage: list\nPrints kind<TAB>name<TAB>paper<TAB>summary for every registered\n"
                 "solver, post-step stage, energy, constraint type and built-in scene, then\n"
                 "setting<TAB>plug-in<TAB>section.key<TAB>type, range, default and meaning for\n"
                 "every scene key a plug-in reads.");
            return 0;
        }
        fprintf(stderr, "error: list takes no arguments (got '%s')\n", argv[1]);
        return 2;
    }
    for (const weft_solver_type *const *s = weft_solver_registry; *s; s++)
        printf("solver\t%s\t%s\t%s; iteration = %s\n", (*s)->name, (*s)->paper, (*s)->summary,
               (*s)->iteration);
    for (const weft_linear_type *const *s = weft_linear_registry; *s; s++)
        printf("linear\t%s\t%s\t%s\n", (*s)->name, (*s)->paper, (*s)->summary);
    for (const weft_precond_type *const *s = weft_precond_registry; *s; s++)
        printf("preconditioner\t%s\t%s\t%s\n", (*s)->name, (*s)->paper, (*s)->summary);
    for (const weft_stage_type *const *s = weft_stage_registry; *s; s++)
        printf("stage\t%s\t%s\t%s\n", (*s)->name, (*s)->paper, (*s)->summary);
    for (const weft_energy_type *const *e = weft_energy_registry; *e; e++)
        printf("energy\t%s\t%s\t%s (%s elements)\n", (*e)->name, (*e)->paper, (*e)->summary,
               kind_name((*e)->kind));
    for (const weft_constraint_info *c = weft_constraint_list; c->name; c++)
        printf("constraint\t%s\t%s\t%s\n", c->name, c->paper, c->summary);
    for (const weft_builtin_scene *b = weft_builtin_scenes; b->name; b++)
        printf("scene\t%s\texperiments/scenes/%s.ini\t%s\n", b->name, b->name, b->summary);
    weft_plugin p[64];
    int n = weft_plugins(p, 64);
    for (int i = 0; i < n; i++) weft_settings_print(stdout, &p[i]);
    return 0;
}
