/* frames.c — the frame files of compare --animate (see frames.h for the format). */
#include "frames.h"

#include <errno.h>
#include <float.h>
#include <string.h>

int weft_frames_every(int steps, int max_frames) {
    if (max_frames < 2 || steps <= 0) return 1;
    int every = (steps + max_frames - 2) / (max_frames - 1); /* frame 0 plus ≤ max - 1 more */
    return every > 0 ? every : 1;
}

/* One point of a polyline. */
static void point(weft_frames *fr, const double *p) {
    for (int k = 0; k < 3; k++) {
        if (p[k] < fr->lo[k]) fr->lo[k] = p[k];
        if (p[k] > fr->hi[k]) fr->hi[k] = p[k];
    }
    if (fprintf(fr->f, "%.4f %.4f %.4f\n", p[0], p[1], p[2]) < 0) fr->failed = true;
}

/* Ends a polyline: a new index block. */
static void end_block(weft_frames *fr) {
    if (fputs("\n\n", fr->f) < 0) fr->failed = true;
}

/* The triangles first .. first + n - 1 of m's mesh as closed loops; returns n. */
static int triangles(weft_frames *fr, const weft_model *m, int first, int n) {
    for (int t = first; t < first + n; t++) {
        const int *v = &m->mesh.tri[3 * t];
        for (int a = 0; a <= 3; a++) point(fr, &m->x[3 * v[a % 3]]);
        end_block(fr);
    }
    return n;
}

/* Writes one frame of m; returns the blocks it took. */
static int frame(weft_frames *fr, const weft_model *m) {
    if (m->nparts == 0) return triangles(fr, m, 0, m->mesh.nt);
    int blocks = 0;
    for (int p = 0; p < m->nparts; p++) {
        const weft_part *part = &m->parts[p];
        int nx = part->grid_nx, ny = part->grid_ny;
        if (nx <= 0 || ny <= 0 || nx * ny != part->nv) {
            blocks += triangles(fr, m, part->first_tri, part->nt);
            continue;
        }
        for (int j = 0; j < ny; j++, blocks++) { /* rows */
            for (int i = 0; i < nx; i++) point(fr, &m->x[3 * (part->first + i + j * nx)]);
            end_block(fr);
        }
        for (int i = 0; i < nx; i++, blocks++) { /* columns */
            for (int j = 0; j < ny; j++) point(fr, &m->x[3 * (part->first + i + j * nx)]);
            end_block(fr);
        }
    }
    return blocks;
}

int weft_frames_open(weft_frames *fr, const char *path, const weft_model *m, int every) {
    memset(fr, 0, sizeof *fr);
    snprintf(fr->path, sizeof fr->path, "%s", path);
    snprintf(fr->tmp, sizeof fr->tmp, "%s.partial", path);
    fr->every = every > 0 ? every : 1;
    for (int k = 0; k < 3; k++) fr->lo[k] = DBL_MAX, fr->hi[k] = -DBL_MAX;
    if (!(fr->f = fopen(fr->tmp, "w"))) {
        fprintf(stderr, "error: %s: cannot write: %s\n", fr->tmp, strerror(errno));
        return -1;
    }
    fprintf(fr->f, "# %s: the cloth every %d steps (x y z, m); one polyline per index block\n",
            m->scene_name, fr->every);
    fr->blocks = frame(fr, m);
    fr->frames = 1;
    return 0;
}

void weft_frames_step(weft_frames *fr, const weft_model *m, int step) {
    if (!fr->f || (step + 1) % fr->every != 0) return;
    frame(fr, m);
    fr->frames++;
}

int weft_frames_close(weft_frames *fr, bool complete) {
    if (!fr->f) return -1;
    bool bad = fclose(fr->f) != 0 || fr->failed;
    fr->f = NULL;
    if (bad || (complete && rename(fr->tmp, fr->path) != 0)) {
        fprintf(stderr, "error: %s: cannot write\n", complete ? fr->path : fr->tmp);
        return -1;
    }
    return 0;
}
