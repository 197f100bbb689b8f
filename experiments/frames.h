/* frames.h — a run's cloth recorded as frames for an animation (compare --animate).
 *
 * One text file per run. Each frame is the same number of gnuplot index blocks (two
 * blank lines apart), one polyline each: the rows and the columns of every grid part, the
 * triangles of every other part. So frame f is `index f*B:(f+1)*B-1`, B = blocks, and
 * the polylines never join across blocks (gnuplot would connect equal-length scans of
 * one block into a false surface). Positions x y z in m, 0.1 mm resolution. The file is
 * <path>.partial until weft_frames_close completes it. */
#ifndef WEFT_FRAMES_H
#define WEFT_FRAMES_H

#include "weft.h"

#include <stdbool.h>
#include <stdio.h>

/* A frame file being written. */
typedef struct weft_frames {
    FILE *f;
    char path[1100], tmp[1200];
    int every;          /* a frame every this many steps (the first at step 0) */
    int frames;         /* frames written so far */
    int blocks;         /* index blocks per frame */
    double lo[3], hi[3]; /* bounding box of every recorded position, m */
    bool failed;        /* a write failed (reported once, at close) */
} weft_frames;

/* Frame interval for a run of `steps` steps that shows at most max_frames frames. */
int weft_frames_every(int steps, int max_frames);

/* Opens path (as path.partial) and records m's state as frame 0; -1 after an error. */
int weft_frames_open(weft_frames *fr, const char *path, const weft_model *m, int every);

/* Records m's state after step `step` (0-based) when step + 1 is a multiple of every. */
void weft_frames_step(weft_frames *fr, const weft_model *m, int step);

/* Closes the file; complete: renames it to its path. 0, or -1 after an error message. */
int weft_frames_close(weft_frames *fr, bool complete);

#endif
