/* sweep.h — what the parameter-sweep experiments (accuracy, damping, stability) share on
 * top of cli.h: their own options, lists of solvers and numbers, results files written
 * through ".partial", and the total energy of a model's state. */
#ifndef WEFT_SWEEP_H
#define WEFT_SWEEP_H

#include "cli.h"
#include "weft.h"

#include <stdio.h>

/* Removes every "--NAME VALUE" or "--NAME=VALUE" whose NAME is in names (NULL-terminated)
 * from argv (updating *argc) and stores the value in values[i] (left as it is when the
 * option is absent; the last occurrence wins). Exits 2 with a one-line error when one of
 * them lacks its value (the next word is missing or is itself an option, "--..."). Run it before weft_cli_parse, which refuses unknown options. */
void weft_sweep_take(int *argc, char **argv, const char *const *names, const char **values);

/* Removes every "--NAME" (a flag without value) from argv, updating *argc; returns
 * whether there was one. */
bool weft_sweep_flag(int *argc, char **argv, const char *name);

/* Parses a comma-separated list of positive numbers into out[max]; each is a decimal or
 * "1/N" (so that time steps read as 1/60). Returns the count or -1 after a one-line
 * error naming `option`. */
int weft_sweep_numbers(const char *option, const char *text, double *out, int max);

/* Parses one positive number (decimal or "1/N"); exits 2 with an error naming option. */
double weft_sweep_number(const char *option, const char *text);

/* Parses a whole number from 1 to max (a count: iterations, steps); exits 2 with an error
 * naming option otherwise. */
int weft_sweep_count(const char *option, const char *text, double max);

/* Applies --grid: value (NULL when absent: dflt if the scene is the default one, else
 * none; "0": none) becomes "--set mesh.nx=N --set mesh.ny=N" in cli, written into buf.
 * Returns N (0 for the scene's own mesh); exits 2 after an error on a bad value. */
int weft_sweep_grid(weft_cli *cli, const char *value, int dflt, char buf[2][32]);

/* Opens "<path>.partial" for writing (its name is kept in tmp[size]); NULL after a
 * one-line error. */
FILE *weft_sweep_open(const char *path, char *tmp, size_t size);

/* Closes f and, when complete, renames tmp to path; returns 0, or -1 after an error.
 * An incomplete file keeps its ".partial" name. */
int weft_sweep_close(FILE *f, const char *tmp, const char *path, bool complete);

/* The mechanical energy of m's current state (x, v), J: kinetic ½ Σ m|v|² from the
 * model's velocities, gravitational −Σ m g·x, and the elastic energy E(x) of its terms. */
typedef struct weft_sweep_energy {
    double kinetic, gravity, elastic, total;
} weft_sweep_energy;

/* Fills e with the energy of m's state. */
void weft_sweep_energy_of(const weft_model *m, weft_sweep_energy *e);

/* Elastic energy of the model's term t (an index into m->terms) at m's positions, J: the
 * share of weft_sweep_energy's elastic that the term holds. */
double weft_sweep_term_energy(const weft_model *m, int t);

/* Kinetic energy ½ Σ m|v|² of m's velocities, J. */
double weft_sweep_kinetic(const weft_model *m);

/* Total mass of the free vertices, kg. */
double weft_sweep_free_mass(const weft_model *m);

/* Diagonal of the bounding box of the rest mesh, m. */
double weft_sweep_extent(const weft_model *m);

/* Joins the run's command line into buf (for a results file's '#' header). */
void weft_sweep_command(int argc, char **argv, char *buf, size_t size);

#endif
