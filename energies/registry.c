/* registry.c — the list of energy types weft knows. A new energy is one file that
 * defines a weft_energy_type plus one line here; ./weft list and the generic tests
 * pick it up from this array. */
#include "weft_energies.h"

#include <string.h>

const weft_energy_type *const weft_energy_registry[] = {
    &weft_mass_spring,
    &weft_dihedral_bending,
    &weft_discrete_shells,
    &weft_quadratic_bending,
    &weft_stvk_membrane,
    &weft_neo_hookean_membrane,
    &weft_stable_neo_hookean_membrane,
    &weft_arap_membrane,
    &weft_baraff_witkin_membrane,
    &weft_anisotropic_fiber_membrane,
    &weft_area_preservation_membrane,
    &weft_stvk_tet,
    &weft_neo_hookean_tet,
    &weft_stable_neo_hookean_tet,
    &weft_arap_tet,
    &weft_symmetric_dirichlet_tet,
    &weft_anisotropic_fiber_tet,
    &weft_vertex_face_contact,
    &weft_edge_edge_contact,
    NULL,
};

const weft_energy_type *weft_energy_find_kind(const char *name, weft_element_kind kind) {
    for (const weft_energy_type *const *t = weft_energy_registry; *t; t++)
        if (strcmp((*t)->name, name) == 0 && (*t)->kind == kind) return *t;
    return NULL;
}

const weft_energy_type *weft_energy_find(const char *name) {
    for (const weft_energy_type *const *t = weft_energy_registry; *t; t++)
        if (strcmp((*t)->name, name) == 0) return *t;
    return NULL;
}
