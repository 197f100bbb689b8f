/* model.c — the simulated system: freeing it, evaluating its energy terms through the
 * energy descriptors (E(x) = Σ_terms Σ_elements Ψ(x_e)), moving pinned vertices along
 * their scripted paths, and placing triangle-mesh obstacles at a time. */
#include "weft.h"

#include <stdlib.h>
#include <string.h>

void weft_model_free(weft_model *m) {
    if (!m) return;
    weft_mesh_free(&m->mesh);
    free(m->x), free(m->v), free(m->x_start), free(m->mass), free(m->w), free(m->pin);
    free(m->paths);
    for (int t = 0; t < m->nterms; t++) free(m->terms[t].elem);
    free(m->colliders);
    free(m->parts);
    for (int k = 0; k < m->nobstacles; k++) weft_mesh_free(&m->obstacles[k].mesh);
    free(m->obstacles);
    memset(m, 0, sizeof *m);
}

/* Gathers the element's vertex positions into xe. */
static void gather(const weft_element *e, int nv, const double *x, double *xe) {
    for (int a = 0; a < nv; a++)
        for (int k = 0; k < 3; k++) xe[3 * a + k] = x[3 * e->v[a] + k];
}

double weft_model_energy(const weft_model *m, const double *x) {
    double E = 0.0;
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term->type->energy) continue;
        for (int i = 0; i < term->n; i++) {
            double xe[3 * WEFT_ELEM_MAXV];
            gather(&term->elem[i], term->type->nv, x, xe);
            E += term->type->energy(&term->elem[i], xe);
        }
    }
    return E;
}

double weft_model_gradient(const weft_model *m, const double *x, double *g) {
    double E = 0.0;
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term->type->gradient) continue;
        int nv = term->type->nv;
        for (int i = 0; i < term->n; i++) {
            const weft_element *e = &term->elem[i];
            double xe[3 * WEFT_ELEM_MAXV], ge[3 * WEFT_ELEM_MAXV];
            gather(e, nv, x, xe);
            E += term->type->gradient(e, xe, ge);
            for (int a = 0; a < nv; a++)
                for (int k = 0; k < 3; k++) g[3 * e->v[a] + k] += ge[3 * a + k];
        }
    }
    return E;
}

void weft_model_apply_pins(const weft_model *m, double t, double *x) {
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] >= 0) weft_pin_position(&m->paths[m->pin[i]], &m->x_start[3 * i], t, &x[3 * i]);
}

void weft_obstacle_positions(const weft_obstacle *o, double t, double *x) {
    for (int i = 0; i < o->mesh.nv; i++)
        for (int k = 0; k < 3; k++) x[3 * i + k] = o->mesh.x[3 * i + k] + o->velocity[k] * t;
}
