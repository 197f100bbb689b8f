/* model.c — the simulated system: freeing it, evaluating its energy terms through the
 * energy descriptors (E(x) = Σ_terms Σ_elements Ψ(x_e)), moving pinned vertices along
 * their scripted paths, and placing triangle-mesh obstacles at a time. */
#include "weft.h"

#include <stdio.h>
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

/* v with the digits that read back as the same double, into one of 32 rotating buffers
 * (a printf call below takes at most 16 numbers, vectors' components included). */
static const char *num(double v) {
    static _Thread_local char ring[32][32];
    static _Thread_local int next;
    char *b = ring[next++ & 31];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(b, 32, "%.*g", prec, v);
        if (strtod(b, NULL) == v) break;
    }
    return b;
}

/* "x y z" of v into one of a few rotating buffers. */
static const char *vec(const double v[3]) {
    static _Thread_local char ring[4][100];
    static _Thread_local int next;
    char *b = ring[next++ & 3];
    snprintf(b, 100, "%s %s %s", num(v[0]), num(v[1]), num(v[2]));
    return b;
}

int weft_model_describe(const weft_model *m, char *buf, size_t size) {
    int len = 0;
    if (size) buf[0] = '\0';
    const weft_mesh *me = &m->mesh;
    weft_appendf(buf, size, &len, "model: mesh vertices=%d triangles=%d tetrahedra=%d edges=%d "
        "hinges=%d parts=%d", me->nv, me->nt, me->ntet, me->ne, me->nh, m->nparts);
    for (int p = 0; p < m->nparts; p++) {
        const weft_part *pt = &m->parts[p];
        weft_appendf(buf, size, &len, "\nmodel: part %s: %s  vertices=%d  density=%s  velocity=%s",
            pt->name[0] ? pt->name : "mesh", pt->source[0] ? pt->source : "(built in code)",
            pt->nv, num(pt->density), vec(pt->velocity));
    }
    const weft_material *mt = &m->material;
    weft_appendf(buf, size, &len, "\nmodel: material density=%s stretch_stiffness=%s "
        "bending_stiffness=%s poisson_ratio=%s youngs_modulus=%s fiber_direction=%s "
        "fiber_stiffness=%s", num(mt->density), num(mt->stretch_stiffness),
        num(mt->bending_stiffness), num(mt->poisson), num(mt->youngs_modulus), vec(mt->fiber),
        num(mt->fiber_stiffness));
    static const char *const roles[] = {"membrane", "bending", "volume", "fiber"};
    const int terms[] = {m->stretch_term, m->bending_term, m->volume_term, m->fiber_term};
    weft_appendf(buf, size, &len, "\nmodel: energy");
    for (int r = 0; r < 4; r++) {
        const weft_term *t = terms[r] >= 0 && terms[r] < m->nterms ? &m->terms[terms[r]] : NULL;
        if (t)
            weft_appendf(buf, size, &len, " %s=%s(%d)", roles[r], t->type->name, t->n);
        else
            weft_appendf(buf, size, &len, " %s=none", roles[r]);
    }
    weft_appendf(buf, size, &len, "  (energy=name(elements), as the model holds them)");
    int pinned = 0;
    for (int i = 0; i < m->n; i++) pinned += m->pin && m->pin[i] >= 0;
    weft_appendf(buf, size, &len, "\nmodel: gravity=%s  contact_margin=%s  pinned_vertices=%d  "
        "pin_paths=%d  pressure: no model term (a solver with a pressure setting lists it "
        "in its settings line)", vec(m->gravity),
        num(m->contact_margin), pinned, m->npaths);
    for (int c = 0; c < m->ncolliders; c++) {
        const weft_collider *k = &m->colliders[c];
        weft_appendf(buf, size, &len, "\nmodel: collider %s type=%s", k->name,
            k->type ? k->type->name : "?");
        for (const weft_collider_param *q = k->type ? k->type->params : NULL; q && q->key; q++)
            weft_appendf(buf, size, &len, " %s=%s", q->key,
                         q->n == 3 ? vec(&k->param[q->at]) : num(k->param[q->at]));
        weft_appendf(buf, size, &len, " velocity=%s friction=%s restitution=%s",
            vec(k->velocity), num(k->friction), num(k->restitution));
    }
    for (int o = 0; o < m->nobstacles; o++) {
        const weft_obstacle *ob = &m->obstacles[o];
        weft_appendf(buf, size, &len, "\nmodel: collider %s type=mesh vertices=%d triangles=%d "
            "velocity=%s friction=%s", ob->name, ob->mesh.nv, ob->mesh.nt, vec(ob->velocity),
            num(ob->friction));
    }
    return len;
}
