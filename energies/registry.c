/* registry.c — the list of energy types weft knows, formed from WEFT_ENERGIES
 * (weft_energies.h); ./weft list, the scene (by name, and by the role each type declares
 * the default of) and the generic tests pick a type up from this array. */
#include "weft_energies.h"

#include <string.h>

#define WEFT_LIST_ENERGY(name) &weft_##name,
const weft_energy_type *const weft_energy_registry[] = {WEFT_ENERGIES(WEFT_LIST_ENERGY) NULL};

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
