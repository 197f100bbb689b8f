/* weft_scene.h — INI scenes, the built-in scenes, building a model from a scene and the
 * run's config of plug-in settings (lib/scene/).
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_SCENE_H
#define WEFT_SCENE_H

#include "weft_model.h"

/* ------------------------------------------------------------------------------ */
/* Scenes                                                                          */
/* ------------------------------------------------------------------------------ */

/* A parsed scene: raw key/value pairs with where each came from. */
typedef struct weft_scene weft_scene;

/* Parses an INI scene file, or a built-in scene when path names one. */
weft_scene *weft_scene_load(const char *name_or_path, weft_error *err);

/* Applies one "section.key=value" override (the origin is named in errors). */
int weft_scene_set(weft_scene *s, const char *assignment, const char *origin, weft_error *err);

/* Builds the model: validates every key, makes the mesh, masses, pins, terms and
 * colliders. Energy types are looked up by name in the NULL-terminated registry. */
int weft_scene_build(const weft_scene *s, const weft_energy_type *const *registry,
                     weft_model *m, weft_error *err);

/* The energy of the NULL-terminated registry that declares itself the default of role
 * (weft_energy_type default_for), or NULL when none does (or role is WEFT_DEFAULT_NONE). */
const weft_energy_type *weft_energy_default(const weft_energy_type *const *registry,
                                            weft_default_role role);

/* The role whose declared default the scene key section.key takes when a scene leaves it
 * out ([material] membrane, bending, volume; their rows' dflt is ""), else WEFT_DEFAULT_NONE. */
weft_default_role weft_scene_key_role(const char *section, const char *key);

/* The name of the energy a scene gets for a [material] key of `role` that it leaves out, on
 * a tetrahedral mesh (volumetric) or a surface: the registry's default of that role where
 * the role fits the mesh (membrane and bending a surface, solid a tetrahedral mesh), else
 * "none" (also when no registered energy declares the role). */
const char *weft_scene_energy_default(const weft_energy_type *const *registry,
                                      weft_default_role role, bool volumetric);

/* Frees the scene and sets *s to NULL; safe on NULL. */
void weft_scene_free(weft_scene **s);

/* Makes the config of a run: each of the n plug-ins' settings from its defaults and, when
 * s is non-NULL, the scene's values. Fails with file:line on a bad value, an unknown
 * plug-in section, or a key no plug-in reads (naming the nearest known key).
 * lib/scene/settings.c. */
weft_config *weft_config_create(const weft_plugin *plugins, int n, const weft_scene *s,
                                weft_error *err);

/* Checks that the "section.key=value" assignment given at origin ("--set") is read by the
 * run: by the model (its own sections) or by a plug-in whose settings c marks taken (or a
 * stage that is off, for the key that turns it on). Otherwise fails with one line naming
 * the key and every plug-in that would read it. lib/scene/settings.c. */
int weft_config_check_read(const weft_config *c, const char *assignment, const char *origin,
                           weft_error *err);

/* Writes the settings of every plug-in c marks taken (the run's own [scene] keys
 * excepted) as scene sections, "key = value" lines; a key the plug-ins read with
 * different values becomes a comment naming each. WEFT_ERR_IO when f fails,
 * WEFT_ERR_NOMEM when memory runs out. */
int weft_config_write_ini(const weft_config *c, FILE *f);

/* Writes scene s as the fully resolved input of a run of model m (built from s) with the
 * settings cfg: [scene] with the run's solvers (a comma-separated list, or NULL for the
 * scene's), every key of the model's sections with its value (defaults included, file
 * paths absolute), [collision] margin and weft_config_write_ini's sections. A scene file
 * weft reads back to the same model and settings. lib/scene/resolved.c. */
int weft_scene_write(const weft_scene *s, const weft_model *m, const weft_config *cfg,
                     const char *solvers, FILE *f, weft_error *err);

/* The descriptor of the i-th plug-in of kind `kind` in c (0, 1, ...), NULL past the last. */
const void *weft_config_plugin(const weft_config *c, const char *kind, int i,
                               const weft_param_table **tables);

/* The value types of the model's own scene keys. */
typedef enum {
    WEFT_KEY_NUMBER,  /* one number */
    WEFT_KEY_INTEGER, /* one integer */
    WEFT_KEY_NAME,    /* one word of a fixed list (or a registry's names) */
    WEFT_KEY_TEXT,    /* free text */
    WEFT_KEY_VEC3,    /* three numbers "x y z" */
    WEFT_KEY_INT3,    /* three integers "x y z" */
    WEFT_KEY_LIST,    /* words or indices, continued on indented lines */
    WEFT_KEY_BOX,     /* six numbers "xmin ymin zmin xmax ymax zmax" */
} weft_key_type;

/* One key of the model's own sections: [scene], [mesh] and [mesh.NAME], [material],
 * [collision] margin, [pins] and [pins.NAME], [collider.NAME]. The scene parser checks
 * keys, value types and numeric ranges against this table (lib/scene/scene.c), and
 * `./weft list` prints it; the plug-ins' sections have their own tables (weft_param). */
typedef struct weft_scene_key {
    const char *section; /* "mesh" also covers [mesh.NAME], "pins" [pins.NAME], "collider"
                            every [collider.NAME] */
    const char *key;
    weft_key_type type;
    const char *unit;    /* SI unit, "1" for a dimensionless number, "" for words and counts */
    double lo, hi;       /* NUMBER, INTEGER, INT3 (each component): the allowed range */
    unsigned flags;      /* WEFT_PARAM_LO_OPEN, WEFT_PARAM_HI_OPEN */
    const char *const *names; /* NAME: the allowed words, NULL-terminated, or NULL when the
                                 doc names where they come from */
    const char *dflt;    /* the default as a scene would write it; "" when absent means
                            nothing (no pins, no path) */
    const char *doc;     /* one line; NULL for a key the run's own table reads and
                            documents (weft_run_tables) */
} weft_scene_key;

/* Every key of the model's sections, terminated by section == NULL. */
extern const weft_scene_key weft_scene_keys[];

/* A word for a scene key's type ("number", "3 numbers (x y z)", ...). */
const char *weft_key_type_name(weft_key_type type);

/* A built-in scene: name, one-line description, INI text. */
typedef struct weft_builtin_scene {
    const char *name;
    const char *summary;
    const char *text;
} weft_builtin_scene;

/* The built-in scenes, terminated by an entry with name == NULL. */
extern const weft_builtin_scene weft_builtin_scenes[];

#endif
