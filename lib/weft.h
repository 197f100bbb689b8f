/* weft.h — the common layer of weft in one include: meshes, colliders, the energy
 * descriptor, models and metrics, scenes and settings, logs, solvers and the run loop.
 *
 * Each part has its own header, next to the library that implements it (lib/CMakeLists.txt
 * lists the libraries):
 *   weft_base.h                errors, suggestions, assertions, settings tables, profiles
 *   mesh/weft_mesh.h           triangle and tetrahedral meshes, OBJ and TetGen files
 *   collider/weft_collider.h   collider shapes, moving obstacles, scripted pins
 *   weft_energy.h              what an energy or constraint type provides
 *   weft_model.h               the simulated system and the common metrics
 *   scene/weft_scene.h         INI scenes, building a model, the run's config
 *   weft_solver.h              logs, the solver descriptor, the monitor, the run loop
 * Linear algebra (linalg/weft_sparse.h, weft_linsolve.h, weft_cholmod.h) and collision
 * handling (collision/weft_collision.h, weft_broadphase.h, weft_geometry.h) are included
 * by the code that uses them.
 *
 * Units are SI everywhere: positions in m, velocities in m/s, masses in kg, inverse
 * masses in 1/kg, time in s, energies in J, forces and residuals in N.
 * Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 *
 * Dependencies point one way: experiments -> solvers -> energies -> lib. These headers
 * declare what an energy type or a solver type must provide; lib/ evaluates a model only
 * through those function pointers and never includes energies/ or solvers/.
 */
#ifndef WEFT_H
#define WEFT_H

#include "weft_base.h"
#include "weft_mesh.h"
#include "weft_collider.h"
#include "weft_energy.h"
#include "weft_model.h"
#include "weft_scene.h"
#include "weft_solver.h"

#endif
