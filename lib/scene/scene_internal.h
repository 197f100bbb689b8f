/* scene_internal.h — what the scene parser (scene.c) shares with the settings reader
 * (settings.c): the raw entries of a scene and typed access with file:line errors. Only
 * lib/scene/ includes it. */
#ifndef WEFT_SCENE_INTERNAL_H
#define WEFT_SCENE_INTERNAL_H

#include "weft.h"

/* One "key = value" of a scene, with where it came from. */
typedef struct entry {
    char *section, *key, *value;
    char *origin; /* file path, "<builtin:NAME>" or "--set" */
    int line;     /* 1-based line in origin, 0 for --set */
} entry;

/* A [section] header of a section the model does not own, kept so that an unknown
 * plug-in section is reported at its line even when it holds no key. */
typedef struct section_header {
    char *name, *origin;
    int line;
} section_header;

struct weft_scene {
    entry *e;
    int n, cap;
    section_header *h; /* plug-in section headers in file order */
    int nh, caph;
    char *path; /* file the scene came from (NULL for built-ins) */
    char *dir;  /* its directory, for relative mesh paths */
    char name[128];
};

/* The last entry of section.key (overrides come last), or NULL. */
entry *weft_scene_find(const weft_scene *s, const char *section, const char *key);

/* "file:line", or the --set origin, of e into buf. */
void weft_scene_where(const entry *e, char *buf, size_t n);

/* Error about entry e, "file:line: section.key: message", with message = fmt % detail;
 * returns WEFT_ERR_INPUT. */
int weft_scene_bad(const entry *e, weft_error *err, const char *fmt, const char *detail);

/* Parses text (e's value or a part of it) as a finite number into *out, or fails naming e. */
int weft_scene_number(const entry *e, const char *text, double *out, weft_error *err);

/* True when the model's schema has section.key (section families: pins.NAME is pins). */
bool weft_scene_key_known(const char *section, const char *key);

/* The schema family of a section: "pins.top" -> "pins", "mesh.top" -> "mesh",
 * "collider.ground" -> "collider", any other section itself. */
const char *weft_scene_family(const char *section);

/* True when the model's schema has some key in section (as [collision] margin). */
bool weft_scene_section_known(const char *section);

/* True when section.key is a list of the schema (a value continued on indented lines). */
bool weft_scene_key_list(const char *section, const char *key);
/* Offers the model's keys of section's family ([pins.NAME] has those of [pins]) to sg. */
void weft_scene_suggest_key(weft_suggest *sg, const char *section);

/* Offers the model's section names to sg; for a word "FAMILY.NAME" with an unknown FAMILY
 * also "collider.NAME", "mesh.NAME" and "pins.NAME", written into buf (3 × 160 bytes),
 * which must outlive sg. */
void weft_scene_suggest_section(weft_suggest *sg, char buf[3][160]);

/* Remembers a plug-in [section] header at origin:line. */
int weft_scene_add_header(weft_scene *s, const char *name, const char *origin, int line);

#endif
