/* scene.c — INI scene files (parsed with libinih), built-in scenes, --set overrides,
 * and the construction of a weft_model from a scene.
 *
 * Every key remembers the file and line it came from, so every error, including ones
 * found only while building the model (a pin index beyond the mesh), names
 * file:line and section.key. The accepted sections and keys, their types, ranges and
 * defaults are the table weft_scene_keys below, which `./weft list keys` prints and
 * docs/settings.md reproduces.
 */
#include "scene_internal.h"
#include "weft.h"
#include "weft_geometry.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------ */
/* Raw entries                                                                     */
/* ------------------------------------------------------------------------------ */


/* The words of the model's NAME and LIST keys; the builders below match values against
 * these same arrays, so the list a user reads is the list the parser accepts. */
static const char *const mesh_types[] = {"grid", "obj", "icosphere", "tet_block", "tetgen", NULL};
static const char *const rest_shapes[] = {"auto", "positions", "uv", NULL};
static const char *const grid_diagonals[] = {"alternating", "regular", NULL};
static const char *const grid_planes[] = {"xy", "xz", NULL};
static const char *const reorders[] = {"none", "rcm", NULL};
static const char *const pin_motions[] = {"fixed", "translate", "rotate", NULL};
static const char *const corner_names[] = {"bottom_left", "bottom_right", "top_left",
                                           "top_right", NULL};
static const char *const edge_names[] = {"bottom", "top", "left", "right", NULL};

#define LO_OPEN WEFT_PARAM_LO_OPEN
/* Rows: section, key, type, unit, lo, hi, flags, names, default, doc. */
#define NUM(sec, key, unit, lo, hi, fl, dflt, doc) \
    {sec, key, WEFT_KEY_NUMBER, unit, lo, hi, fl, NULL, dflt, doc}
#define INT(sec, key, lo, hi, dflt, doc) {sec, key, WEFT_KEY_INTEGER, "", lo, hi, 0, NULL, dflt, doc}
#define VEC(sec, key, unit, dflt, doc) {sec, key, WEFT_KEY_VEC3, unit, 0, 0, 0, NULL, dflt, doc}
#define WORD(sec, key, names, dflt, doc) {sec, key, WEFT_KEY_NAME, "", 0, 0, 0, names, dflt, doc}
#define TEXT(sec, key, dflt, doc) {sec, key, WEFT_KEY_TEXT, "", 0, 0, 0, NULL, dflt, doc}
#define LIST(sec, key, names, doc) {sec, key, WEFT_KEY_LIST, "", 0, 0, 0, names, "", doc}

/* Every key the model reads, with the range its value must lie in where it is a number.
 * The sections of the model (scene, mesh, material, pins, collider) accept these keys
 * only; every other section, and the other keys of [collision], belong to the plug-ins
 * (solvers, linear solvers, preconditioners, post-step stages), whose settings tables
 * check them when the run's config is made (lib/scene/settings.c). scene.steps and
 * scene.solvers are listed here but read, and documented, by the run's own settings
 * table (lib/run.c). */
const weft_scene_key weft_scene_keys[] = {
    TEXT("scene", "name", "the file's name", "names the results directory: letters, digits, "
         "'_', '-', '.'"),
    TEXT("scene", "description", "", "one line about the scene, for people"),
    NUM("scene", "dt", "s", 0, 10, LO_OPEN, "0.016666667", "time step (1/60 s by default)"),
    {"scene", "steps", WEFT_KEY_INTEGER, "", 0, 0, 0, NULL, "", NULL},
    VEC("scene", "gravity", "m/s^2", "0 -9.81 0", "gravitational acceleration"),
    {"scene", "solvers", WEFT_KEY_TEXT, "", 0, 0, 0, NULL, "", NULL},
    WORD("mesh", "type", mesh_types, "grid", "what makes the mesh: a generated grid, "
         "icosphere or tetrahedral block, or an OBJ or TetGen file; [mesh.NAME] parts take "
         "grid, obj or icosphere"),
    NUM("mesh", "width", "m", 0, 1e6, LO_OPEN, "1", "grid: size along its first axis"),
    NUM("mesh", "height", "m", 0, 1e6, LO_OPEN, "1", "grid: size along its second axis"),
    INT("mesh", "nx", 2, 4096, "32", "grid: vertices along the width"),
    INT("mesh", "ny", 2, 4096, "32", "grid: vertices along the height"),
    WORD("mesh", "diagonals", grid_diagonals, "alternating", "grid: how each quad is split "
         "into two triangles"),
    WORD("mesh", "plane", grid_planes, "xy", "grid: the plane it lies in (xz: horizontal)"),
    VEC("mesh", "origin", "m", "0 0 0", "grid: its first corner; tet_block: its lowest corner"),
    TEXT("mesh", "path", "", "obj, tetgen: the file, relative to the scene file (TetGen: the "
         ".node or .ele file or their stem)"),
    NUM("mesh", "scale", "1", 0, 1e9, LO_OPEN, "1", "obj, tetgen: factor on the file's "
        "positions"),
    VEC("mesh", "translate", "m", "0 0 0", "obj, tetgen: added to the scaled positions"),
    NUM("mesh", "radius", "m", 0, 1e6, LO_OPEN, "0.25", "icosphere: its radius"),
    INT("mesh", "subdivisions", 0, 6, "3", "icosphere: subdivisions of the icosahedron"),
    VEC("mesh", "center", "m", "0 0 0", "icosphere: its centre"),
    VEC("mesh", "size", "m", "1 1 1", "tet_block: its sides along x, y, z, each in (0, 1e6]"),
    WORD("mesh", "rest_shape", rest_shapes, "auto", "rest shape and warp/weft axes of triangle "
         "energies: uv is the OBJ's vt in metres; auto is a grid's layout, an OBJ's positions"),
    VEC("mesh", "velocity", "m/s", "0 0 0", "initial velocity of the part's free vertices"),
    NUM("mesh", "density", "kg/m^2", 0, 1e6, LO_OPEN, "material.density", "[mesh.NAME] "
        "only: the part's own surface density"),
    {"mesh", "cells", WEFT_KEY_INT3, "", 1, 256, 0, NULL, "4 4 4",
     "tet_block: cubes along x, y, z, six tetrahedra each"},
    WORD("mesh", "reorder", reorders, "none", "[mesh] only: rcm renumbers the built model's "
         "vertices by reverse Cuthill-McKee for a narrower Hessian band"),
    NUM("material", "density", "kg/m^2", 0, 1e6, LO_OPEN, "0.1", "mass per area of a surface "
        "(per volume, kg/m^3, default 1000, on a tetrahedral mesh)"),
    NUM("material", "stretch_stiffness", "N/m", 0, 1e12, 0, "1000", "membrane stiffness Y "
        "(Young's modulus x thickness) of every membrane energy"),
    NUM("material", "bending_stiffness", "N m", 0, 1e6, 0, "1e-4", "flexural rigidity D of "
        "cylindrical bending, for every bending energy"),
    /* The energy keys' defaults are the energies declaring their roles (energy_keys). */
    WORD("material", "membrane", NULL, "", "edge or triangle energy: a registered energy's "
         "name or none"),
    WORD("material", "bending", NULL, "", "hinge energy: a registered energy's name or none"),
    WORD("material", "volume", NULL, "", "tetrahedron energy: a registered energy's name or "
         "none"),
    WORD("material", "fiber", NULL, "none", "fibre energy (along fiber_direction): a "
         "registered energy's name or none"),
    NUM("material", "poisson_ratio", "1", 0, 0.5, WEFT_PARAM_HI_OPEN, "0.3",
        "Poisson's ratio nu of membrane and volume finite elements"),
    NUM("material", "youngs_modulus", "Pa", 0, 1e13, 0, "1e5", "Young's modulus E of the "
        "volume energies"),
    VEC("material", "fiber_direction", "1", "1 0 0", "fibre direction: material (u, v, 0) on "
        "cloth, a rest-space vector in a solid"),
    NUM("material", "fiber_stiffness", "N/m", 0, 1e13, 0, "0", "fibre stiffness (Pa in a "
        "solid)"),
    NUM("collision", "margin", "m", 0, 1, 0, "0.001", "distance kept from the colliders (the "
        "other [collision] keys belong to the collision stage)"),
    LIST("pins", "vertices", NULL, "0-based vertex indices within the part `mesh` names"),
    LIST("pins", "corners", corner_names, "corners of that part's grid"),
    LIST("pins", "edges", edge_names, "whole rows or columns of that part's grid"),
    {"pins", "box", WEFT_KEY_BOX, "m", 0, 0, 0, NULL, "", "every vertex whose rest position "
     "lies in the closed box (of the named part only when `mesh` is given); none is an error"},
    TEXT("pins", "mesh", "[mesh]", "the [mesh.NAME] part the selectors refer to, by NAME"),
    WORD("pins", "motion", pin_motions, "fixed", "the pinned vertices' scripted path"),
    VEC("pins", "velocity", "m/s", "0 0 0", "translate: their velocity"),
    VEC("pins", "angular_velocity", "rad/s", "0 0 0", "rotate: axis x rate"),
    VEC("pins", "center", "m", "0 0 0", "rotate: the centre of rotation"),
    WORD("collider", "type", NULL, "", "required: a registered collider shape, whose own keys "
         "its entry in the colliders group lists, or mesh, a triangle-mesh obstacle"),
    VEC("collider", "velocity", "m/s", "0 0 0", "the obstacle translates at this velocity"),
    NUM("collider", "friction", "1", 0, 100, 0, "0.3", "Coulomb coefficient mu of contacts"),
    NUM("collider", "restitution", "1", 0, 1, 0, "0", "analytic shapes: coefficient of "
        "restitution e"),
    TEXT("collider", "path", "", "mesh: the OBJ file, relative to the scene file"),
    NUM("collider", "scale", "1", 0, 1e9, LO_OPEN, "1", "mesh: factor on the file's positions"),
    VEC("collider", "translate", "m", "0 0 0", "mesh: added to the scaled positions"),
    {NULL, NULL, WEFT_KEY_TEXT, NULL, 0, 0, 0, NULL, NULL, NULL},
};
#undef NUM
#undef INT
#undef VEC
#undef WORD
#undef TEXT
#undef LIST
#undef LO_OPEN

const char *weft_key_type_name(weft_key_type type) {
    switch (type) {
    case WEFT_KEY_NUMBER: return "number";
    case WEFT_KEY_INTEGER: return "integer";
    case WEFT_KEY_NAME: return "name";
    case WEFT_KEY_TEXT: return "text";
    case WEFT_KEY_VEC3: return "3 numbers (x y z)";
    case WEFT_KEY_INT3: return "3 integers (x y z)";
    case WEFT_KEY_LIST: return "list";
    case WEFT_KEY_BOX: return "6 numbers (xmin ymin zmin xmax ymax zmax)";
    }
    return "?";
}

/* A row of weft_scene_keys, as the parser below calls it. */
typedef weft_scene_key schema_key;

/* The schema family of a section: "pins.top" -> "pins", "collider.ground" -> "collider",
 * "mesh.top" -> "mesh". */
static const char *section_family(const char *section) {
    if (strcmp(section, "pins") == 0 || strncmp(section, "pins.", 5) == 0) return "pins";
    if (strncmp(section, "mesh.", 5) == 0 && section[5]) return "mesh";
    if (strncmp(section, "collider.", 9) == 0 && section[9]) return "collider";
    /* Colliders are named, [collider.NAME] (the name is what follows "collider."): a bare
     * [collider] belongs to no family, so it is an unknown section. */
    if (strcmp(section, "collider") == 0) return "";
    return section;
}

/* The row schema_find gives for a key of a collider shape's own table: build_collider
 * reads and checks it against the section's type (weft_collider_type.params). */
static const schema_key shape_key = {"collider", "", WEFT_KEY_TEXT, "", 0, 0, 0, NULL, "", ""};

/* The registered collider type whose table has key, or NULL. */
static const weft_collider_type *shape_with_key(const char *key) {
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++)
        if (weft_collider_param_find(*t, key)) return *t;
    return NULL;
}

static const schema_key *schema_find(const char *section, const char *key) {
    const char *fam = section_family(section);
    for (const schema_key *k = weft_scene_keys; k->section; k++)
        if (strcmp(k->section, fam) == 0 && strcmp(k->key, key) == 0) return k;
    if (!strcmp(fam, "collider") && shape_with_key(key)) return &shape_key;
    return NULL;
}

/* True for a section of the model ([scene], [mesh], [mesh.NAME], [material], [pins],
 * [pins.NAME], [collider.NAME]), whose keys are checked against the schema as they are
 * read; any other section belongs to the plug-ins and is checked by the config. */
static bool section_owned(const char *section) {
    static const char *const owned[] = {"scene", "mesh", "material", "pins", "collider", NULL};
    const char *fam = section_family(section);
    for (int i = 0; owned[i]; i++)
        if (strcmp(owned[i], fam) == 0) return true;
    return false;
}

bool weft_scene_key_known(const char *section, const char *key) {
    return schema_find(section, key) != NULL;
}

const char *weft_scene_family(const char *section) { return section_family(section); }

bool weft_scene_section_known(const char *section) {
    const char *fam = section_family(section);
    for (const schema_key *k = weft_scene_keys; k->section; k++)
        if (strcmp(k->section, fam) == 0) return true;
    return false;
}

bool weft_scene_key_list(const char *section, const char *key) {
    const schema_key *k = schema_find(section, key);
    return k && k->type == WEFT_KEY_LIST;
}

void weft_scene_suggest_key(weft_suggest *sg, const char *section) {
    const char *fam = section_family(section);
    for (const schema_key *k = weft_scene_keys; k->section; k++)
        if (!strcmp(k->section, fam)) weft_suggest_offer(sg, k->key);
    if (strcmp(fam, "collider")) return;
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++)
        for (const weft_collider_param *q = (*t)->params; q && q->key; q++)
            weft_suggest_offer(sg, q->key);
}

void weft_scene_suggest_section(weft_suggest *sg, char buf[3][160]) {
    static const char *const plain[] = {"scene", "mesh", "material", "pins", "collision", NULL};
    for (int i = 0; plain[i]; i++) weft_suggest_offer(sg, plain[i]);
    /* A named section whose family is misspelt: [colider.ground] -> [collider.ground]. */
    static const char *const named[] = {"collider", "mesh", "pins"};
    const char *dot = strchr(sg->word, '.');
    if (!dot || !dot[1]) return;
    for (int i = 0; i < 3; i++) {
        snprintf(buf[i], 160, "%s%.150s", named[i], dot);
        weft_suggest_offer(sg, buf[i]);
    }
}

/* Writes " (nearest: PREFIX.NAME)" for sg's suggestion, or nothing, into buf of size n. */
static void hint(const weft_suggest *sg, const char *prefix, char *buf, size_t n) {
    const char *best = weft_suggest_best(sg);
    if (best)
        snprintf(buf, n, " (nearest: %s%s)", prefix, best);
    else
        buf[0] = '\0';
}

void weft_scene_where(const entry *e, char *buf, size_t n) {
    if (e->line > 0)
        snprintf(buf, n, "%s:%d", e->origin, e->line);
    else
        snprintf(buf, n, "%s", e->origin);
}

entry *weft_scene_find(const weft_scene *s, const char *section, const char *key) {
    for (int i = s->n - 1; i >= 0; i--) /* last wins: overrides come last */
        if (strcmp(s->e[i].section, section) == 0 && strcmp(s->e[i].key, key) == 0)
            return &s->e[i];
    return NULL;
}

static char *dupstr(const char *a) {
    size_t n = strlen(a) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, a, n);
    return p;
}

int weft_scene_add_header(weft_scene *s, const char *name, const char *origin, int line) {
    if (s->nh == s->caph) {
        int cap = s->caph ? 2 * s->caph : 8;
        section_header *h = realloc(s->h, (size_t)cap * sizeof *h);
        if (!h) return WEFT_ERR_NOMEM;
        s->h = h, s->caph = cap;
    }
    section_header *h = &s->h[s->nh];
    h->name = dupstr(name), h->origin = dupstr(origin), h->line = line;
    if (!h->name || !h->origin) {
        free(h->name), free(h->origin);
        return WEFT_ERR_NOMEM;
    }
    s->nh++;
    return WEFT_OK;
}

static int add_entry(weft_scene *s, const char *section, const char *key, const char *value,
                     const char *origin, int line) {
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        entry *e = realloc(s->e, (size_t)cap * sizeof *e);
        if (!e) return WEFT_ERR_NOMEM;
        s->e = e, s->cap = cap;
    }
    entry *e = &s->e[s->n];
    e->section = dupstr(section), e->key = dupstr(key), e->value = dupstr(value);
    e->origin = dupstr(origin), e->line = line;
    if (!e->section || !e->key || !e->value || !e->origin) {
        free(e->section), free(e->key), free(e->value), free(e->origin);
        return WEFT_ERR_NOMEM;
    }
    s->n++;
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Parsing with libinih                                                            */
/* ------------------------------------------------------------------------------ */

/* Reader state: inih pulls lines through `reader`, which counts them, so the handler
 * knows the line of every key (Debian's inih has no INI_HANDLER_LINENO). */
typedef struct parse_ctx {
    weft_scene *s;
    const char *text, *pos; /* whole file in memory */
    const char *origin;
    int line;
    int too_long; /* line number of an over-long line, 0 if none */
    char section[128]; /* the last [section] header's name */
    weft_error *err;
    int failed;
} parse_ctx;

static char *reader(char *str, int num, void *stream) {
    parse_ctx *c = stream;
    if (!*c->pos || c->too_long || c->failed) return NULL;
    const char *end = strchr(c->pos, '\n');
    size_t len = end ? (size_t)(end - c->pos) + 1 : strlen(c->pos);
    size_t keep = end ? len - 1 : len; /* the newline is not passed on: inih strips it anyway */
    if (keep > 0 && c->pos[keep - 1] == '\r') keep--; /* nor a CRLF file's carriage return */
    c->line++;
    if (keep + 1 > (size_t)num) { /* inih would split it silently: refuse instead */
        c->too_long = c->line;
        return NULL;
    }
    memcpy(str, c->pos, keep);
    str[keep] = '\0';
    c->pos += len;
    /* Check section headers here, where their line is known: inih reports a section
     * only through the keys under it, so an empty unknown section would pass unseen. */
    const char *h = str;
    while (*h == ' ' || *h == '\t') h++;
    const char *close = *h == '[' ? strchr(h, ']') : NULL;
    if (*h == '[' && !close) { /* inih would go on in the previous section: say it here */
        weft_fail(c->err, WEFT_ERR_INPUT,
                  "%s:%d: malformed section header '%.60s' (no closing ']'; expected [NAME])",
                  c->origin, c->line, h);
        c->failed = 1;
        return NULL;
    }
    if (close && (size_t)(close - h - 1) < sizeof c->section) {
        memcpy(c->section, h + 1, (size_t)(close - h - 1));
        c->section[close - h - 1] = '\0';
        if (!section_owned(c->section) && weft_scene_add_header(c->s, c->section, c->origin,
                                                                 c->line) != WEFT_OK) {
            c->failed = 1;
            return NULL;
        }
    }
    return str;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
    parse_ctx *c = user;
    weft_scene *s = c->s;
    const schema_key *k = schema_find(section, name);
    const bool owned = section_owned(section);
    if (owned && !k) {
        weft_suggest sg;
        weft_suggest_init(&sg, name);
        weft_scene_suggest_key(&sg, section);
        char h[200], prefix[140];
        snprintf(prefix, sizeof prefix, "%.120s.", section);
        hint(&sg, prefix, h, sizeof h);
        weft_fail(c->err, WEFT_ERR_INPUT, "%s:%d: %s.%s: unknown key%s", c->origin, c->line,
                  section, name, h);
        c->failed = 1;
        return 0;
    }
    entry *prev = weft_scene_find(s, section, name);
    if (prev && prev->line > 0 && strcmp(prev->origin, c->origin) == 0) {
        if (k && k->type == WEFT_KEY_LIST && prev->line == c->line - 1) {
            /* An indented continuation line (or a repeated list key): append. */
            size_t n = strlen(prev->value) + strlen(value) + 2;
            char *v = malloc(n);
            if (!v) return 0;
            snprintf(v, n, "%s %s", prev->value, value);
            free(prev->value);
            prev->value = v;
            prev->line = c->line;
            return 1;
        }
        if (!k || k->type != WEFT_KEY_LIST) {
            weft_fail(c->err, WEFT_ERR_INPUT, "%s:%d: %s.%s: duplicate key (first at line %d)",
                      c->origin, c->line, section, name, prev->line);
            c->failed = 1;
            return 0;
        }
    }
    if (add_entry(s, section, name, value, c->origin, c->line) != WEFT_OK) {
        weft_fail(c->err, WEFT_ERR_NOMEM, "out of memory reading %s", c->origin);
        c->failed = 1;
        return 0;
    }
    return 1;
}

static int parse_text(weft_scene *s, const char *text, const char *origin, weft_error *err) {
    parse_ctx c = {.s = s, .text = text, .pos = text, .origin = origin, .err = err};
    int rc = ini_parse_stream(reader, &c, handler, &c);
    if (c.too_long)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%d: line too long (limit 199 characters); continue a long list "
                         "on indented lines", origin, c.too_long);
    if (c.failed) return weft_error_code(WEFT_ERR_INPUT); /* NOMEM stays NOMEM */
    if (rc > 0)
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%d: syntax error (expected [section] or key = value)",
                         origin, rc);
    if (rc < 0) return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", origin);
    return WEFT_OK;
}

/* Largest scene file read, bytes: scenes are a few kB; a bigger "scene" is a mistake. */
#define WEFT_MAX_SCENE_BYTES (1 << 20)

static char *read_file(const char *path, weft_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        weft_fail(err, WEFT_ERR_INPUT, "%s: cannot open scene file: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a folder too */
        fclose(f);
        weft_fail(err, WEFT_ERR_INPUT, "%s: is a directory, not a scene file", path);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n < cap - 1) break;
        if (n > WEFT_MAX_SCENE_BYTES) { /* also ends the read of an endless file (/dev/zero) */
            free(buf);
            fclose(f);
            weft_fail(err, WEFT_ERR_INPUT, "%s: larger than the limit of %d bytes for a scene "
                      "file", path, WEFT_MAX_SCENE_BYTES);
            return NULL;
        }
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b, cap *= 2;
    }
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (!buf) {
        weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (read_errno) {
        free(buf);
        weft_fail(err, WEFT_ERR_INPUT, "%s: cannot read scene file: %s", path,
                  strerror(read_errno));
        return NULL;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        free(buf);
        weft_fail(err, WEFT_ERR_INPUT, "%s: not a text file", path);
        return NULL;
    }
    return buf;
}

weft_scene *weft_scene_load(const char *name_or_path, weft_error *err) {
    weft_scene *s = calloc(1, sizeof *s);
    if (!s) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    const weft_builtin_scene *b = weft_builtin_scenes;
    while (b->name && strcmp(b->name, name_or_path) != 0) b++;
    int rc;
    if (b->name) {
        char origin[160];
        snprintf(origin, sizeof origin, "<builtin:%s>", b->name);
        snprintf(s->name, sizeof s->name, "%s", b->name);
        rc = parse_text(s, b->text, origin, err);
    } else {
        char *text = read_file(name_or_path, err);
        if (!text) {
            if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".ini")) {
                /* Probably a mistyped built-in name: say which ones exist. */
                char list[256] = "";
                for (b = weft_builtin_scenes; b->name; b++) {
                    strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
                    strncat(list, b->name, sizeof list - strlen(list) - 1);
                }
                weft_fail(err, WEFT_ERR_INPUT,
                          "%s: no such scene file or built-in scene (built-ins: %s)",
                          name_or_path, list);
            }
            weft_scene_free(&s);
            return NULL;
        }
        s->path = dupstr(name_or_path);
        s->dir = dupstr(name_or_path);
        char *slash = s->dir ? strrchr(s->dir, '/') : NULL;
        if (slash)
            slash[1] = '\0';
        else if (s->dir)
            s->dir[0] = '\0';
        /* Default name: the file name without directory and extension. */
        const char *base = strrchr(name_or_path, '/');
        snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : name_or_path);
        char *dot = strrchr(s->name, '.');
        if (dot && dot != s->name) *dot = '\0';
        rc = parse_text(s, text, name_or_path, err);
        free(text);
        /* A file that sets nothing would run the defaults (a 32 x 32 cloth) as if it were
         * a scene: most likely the wrong file, or one not yet written. */
        if (rc == WEFT_OK && s->n == 0 && s->nh == 0)
            rc = weft_fail(err, WEFT_ERR_INPUT, "%s: the scene file sets nothing (it is empty "
                           "or holds only comments and section headers)", name_or_path);
    }
    if (rc != WEFT_OK) {
        weft_scene_free(&s);
        return NULL;
    }
    entry *nm = weft_scene_find(s, "scene", "name");
    if (nm) snprintf(s->name, sizeof s->name, "%s", nm->value);
    return s;
}

int weft_scene_set(weft_scene *s, const char *assignment, const char *origin, weft_error *err) {
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return weft_fail(err, WEFT_ERR_INPUT, "%s %s: expected section.key=value", origin,
                         assignment);
    char lhs[256];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof lhs)
        return weft_fail(err, WEFT_ERR_INPUT, "%s %s: key too long", origin, assignment);
    memcpy(lhs, assignment, n);
    lhs[n] = '\0';
    char *dot = strrchr(lhs, '.');
    if (!dot || dot == lhs || !dot[1])
        return weft_fail(err, WEFT_ERR_INPUT, "%s %s: expected section.key=value", origin,
                         assignment);
    *dot = '\0';
    const char *section = lhs, *key = dot + 1, *value = eq + 1;
    if (section_owned(section) && !schema_find(section, key)) {
        weft_suggest sg;
        weft_suggest_init(&sg, key);
        weft_scene_suggest_key(&sg, section);
        char h[200], prefix[140];
        snprintf(prefix, sizeof prefix, "%.120s.", section);
        hint(&sg, prefix, h, sizeof h);
        return weft_fail(err, WEFT_ERR_INPUT, "%s %s: %s.%s: unknown key%s", origin, assignment,
                         section, key, h);
    }
    char where_buf[300];
    snprintf(where_buf, sizeof where_buf, "%s %s", origin, assignment);
    if (add_entry(s, section, key, value, where_buf, 0) != WEFT_OK)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    if (strcmp(section, "scene") == 0 && strcmp(key, "name") == 0)
        snprintf(s->name, sizeof s->name, "%s", value);
    return WEFT_OK;
}

void weft_scene_free(weft_scene **ps) {
    if (!ps || !*ps) return;
    weft_scene *s = *ps;
    for (int i = 0; i < s->n; i++)
        free(s->e[i].section), free(s->e[i].key), free(s->e[i].value), free(s->e[i].origin);
    for (int i = 0; i < s->nh; i++) free(s->h[i].name), free(s->h[i].origin);
    free(s->h);
    free(s->e);
    free(s->path);
    free(s->dir);
    free(s);
    *ps = NULL;
}

/* ------------------------------------------------------------------------------ */
/* Typed, range-checked access                                                     */
/* ------------------------------------------------------------------------------ */

int weft_scene_bad(const entry *e, weft_error *err, const char *fmt, const char *detail) {
    char w[400], m[300];
    weft_scene_where(e, w, sizeof w);
    snprintf(m, sizeof m, fmt, detail);
    return weft_fail(err, WEFT_ERR_INPUT, "%s: %s.%s: %s", w, e->section, e->key, m);
}

int weft_scene_number(const entry *e, const char *text, double *out, weft_error *err) {
    /* A number, or a fraction A/B (scene.dt = 1/120) as the sweeps' axes take it. */
    char t[256];
    size_t n = strlen(text);
    while (n > 0 && isspace((unsigned char)text[n - 1])) n--;
    snprintf(t, sizeof t, "%.*s", (int)(n < sizeof t ? n : sizeof t - 1), text);
    double v;
    if (weft_parse_number(t, &v)) {
        *out = v;
        return WEFT_OK;
    }
    char *end;
    errno = 0;
    v = strtod(t, &end);
    if (end != t && !*end && errno != ERANGE && !isfinite(v))
        return weft_scene_bad(e, err, "'%s' is not a finite number", text);
    return weft_scene_bad(e, err, "'%s' is not a number (or a fraction A/B)", text);
}

/* Reads a NUMBER key within the range of its row of weft_scene_keys; keeps *out if absent. */
static int get_double(const weft_scene *s, const char *section, const char *key, double *out,
                      weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    if (!e) return WEFT_OK;
    const schema_key *k = schema_find(section, key);
    double v;
    int rc = weft_scene_number(e, e->value, &v, err);
    if (rc) return rc;
    const bool lo_open = k->flags & WEFT_PARAM_LO_OPEN, hi_open = k->flags & WEFT_PARAM_HI_OPEN;
    const double lo = k->lo, hi = k->hi;
    if ((lo_open ? !(v > lo) : !(v >= lo)) || (hi_open ? !(v < hi) : !(v <= hi))) {
        char range[128];
        snprintf(range, sizeof range, "%s must lie in %s%g, %g%s", e->value, lo_open ? "(" : "[",
                 lo, hi, hi_open ? ")" : "]");
        return weft_scene_bad(e, err, "%s", range);
    }
    *out = v;
    return WEFT_OK;
}

/* Reads an INTEGER key within the range of its row of weft_scene_keys; keeps *out if absent. */
static int get_int(const weft_scene *s, const char *section, const char *key, int *out,
                   weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    if (!e) return WEFT_OK;
    const schema_key *k = schema_find(section, key);
    const long lo = (long)k->lo, hi = (long)k->hi;
    char *end;
    errno = 0;
    long v = strtol(e->value, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (end == e->value || *end || errno == ERANGE)
        return weft_scene_bad(e, err, "'%s' is not an integer", e->value);
    if (v < lo || v > hi) {
        char range[128];
        snprintf(range, sizeof range, "%ld must lie in [%ld, %ld]", v, lo, hi);
        return weft_scene_bad(e, err, "%s", range);
    }
    *out = (int)v;
    return WEFT_OK;
}

static int get_vec3(const weft_scene *s, const char *section, const char *key, double out[3],
                    weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    if (!e) return WEFT_OK;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e->value);
    double v[3];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        if (n == 3) return weft_scene_bad(e, err, "'%s' has more than 3 components", e->value);
        int rc = weft_scene_number(e, tok, &v[n++], err);
        if (rc) return rc;
    }
    if (n != 3) return weft_scene_bad(e, err, "'%s' needs 3 components (x y z)", e->value);
    for (int k = 0; k < 3; k++) out[k] = v[k];
    return WEFT_OK;
}

/* Reads three integers "a b c" (or "a,b,c"), each in its row's [lo, hi]; keeps out if
 * absent. */
static int get_int3(const weft_scene *s, const char *section, const char *key, int out[3],
                    weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    if (!e) return WEFT_OK;
    const schema_key *k = schema_find(section, key);
    const long lo = (long)k->lo, hi = (long)k->hi;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e->value);
    long v[3];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        if (n == 3) return weft_scene_bad(e, err, "'%s' has more than 3 components", e->value);
        char *end;
        errno = 0;
        v[n] = strtol(tok, &end, 10);
        if (end == tok || *end || errno == ERANGE)
            return weft_scene_bad(e, err, "'%s' is not an integer", tok);
        if (v[n] < lo || v[n] > hi) {
            char range[128];
            snprintf(range, sizeof range, "%ld must lie in [%ld, %ld]", v[n], lo, hi);
            return weft_scene_bad(e, err, "%s", range);
        }
        n++;
    }
    if (n != 3) return weft_scene_bad(e, err, "'%s' needs 3 integers (x y z)", e->value);
    for (int k = 0; k < 3; k++) out[k] = (int)v[k];
    return WEFT_OK;
}

/* Reads an axis-aligned box "xmin ymin zmin xmax ymax zmax" (m) with min <= max on every
 * axis; *found tells whether the key is present. */
static int get_box(const weft_scene *s, const char *section, const char *key, double box[6],
                   bool *found, weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    *found = e != NULL;
    if (!e) return WEFT_OK;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e->value);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        if (n == 6) return weft_scene_bad(e, err, "'%s' has more than 6 components", e->value);
        int rc = weft_scene_number(e, tok, &box[n++], err);
        if (rc) return rc;
    }
    if (n != 6)
        return weft_scene_bad(e, err, "'%s' needs 6 numbers (xmin ymin zmin xmax ymax zmax)", e->value);
    for (int k = 0; k < 3; k++)
        if (box[k] > box[k + 3]) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s: %cmin %g > %cmax %g", e->value, "xyz"[k], box[k],
                     "xyz"[k], box[k + 3]);
            return weft_scene_bad(e, err, "%s", msg);
        }
    return WEFT_OK;
}

/* Matches the value against NULL-terminated names; *out is the index. */
static int get_enum(const weft_scene *s, const char *section, const char *key,
                    const char *const *names, int *out, weft_error *err) {
    const entry *e = weft_scene_find(s, section, key);
    if (!e) return WEFT_OK;
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        if (strcmp(e->value, names[i]) == 0) {
            *out = i;
            return WEFT_OK;
        }
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    weft_suggest sg;
    weft_suggest_init(&sg, e->value);
    for (int i = 0; names[i]; i++) weft_suggest_offer(&sg, names[i]);
    char m[300], h[96];
    hint(&sg, "", h, sizeof h);
    snprintf(m, sizeof m, "'%.60s' is not one of: %.120s%s", e->value, list, h);
    return weft_scene_bad(e, err, "%s", m);
}

/* ------------------------------------------------------------------------------ */
/* Building the model                                                              */
/* ------------------------------------------------------------------------------ */

static double tri_area(const double *x, const int *t) {
    const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Where each triangle's rest shape comes from for triangle energies (build_terms): the
 * material coordinates of its corners (m) where on[t], else its rest positions. Kept per
 * triangle because a scene's parts may differ (a grid's layout next to an OBJ's
 * positions) and the union of the parts keeps material coordinates only if all have them. */
typedef struct rest_shape {
    double *uv;        /* 6*nt: (u, v) of the triangle's three corners */
    unsigned char *on; /* nt */
} rest_shape;

static void rest_shape_free(rest_shape *rs) {
    free(rs->uv), free(rs->on);
    rs->uv = NULL, rs->on = NULL;
}

/* The first entry of section sec (to point an error at a section that lacks a key). */
static const entry *first_entry(const weft_scene *s, const char *sec) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].section, sec)) return &s->e[i];
    return NULL;
}

/* v with the fewest digits (15 to 17) that read back as v, into buf[32]; returns buf. */
static const char *exact(double v, char *buf) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

/* Builds the mesh one mesh section describes ([mesh] or a [mesh.NAME] part): a generated
 * grid, icosphere or tetrahedral block, or an OBJ or TetGen file (path relative to the
 * scene file) scaled and translated; parts may not be tetrahedral. *use_uv gets the rest
 * shape its rest_shape key asks for: auto is a grid's layout and an OBJ's positions. */
static int build_part_mesh(const weft_scene *s, const char *sec, weft_mesh *mesh, bool *use_uv,
                           char *source, size_t source_size, weft_error *err) {
    enum { GRID, OBJ, ICOSPHERE, TET_BLOCK, TETGEN };
    const char *const *types = mesh_types, *const *shapes = rest_shapes;
    const bool part = strcmp(sec, "mesh") != 0;
    int type = GRID, shape = 0, rc;
    if ((rc = get_enum(s, sec, "type", types, &type, err)) ||
        (rc = get_enum(s, sec, "rest_shape", shapes, &shape, err)))
        return rc;
    if (part && (type == TET_BLOCK || type == TETGEN))
        return weft_scene_bad(weft_scene_find(s, sec, "type"), err, "%s",
                   "a [mesh.NAME] part is a surface (grid, obj or icosphere); a tetrahedral "
                   "mesh can only be the scene's one [mesh]");
    if (type == GRID) {
        const char *const *diag = grid_diagonals, *const *plane = grid_planes;
        weft_grid_desc d = {.width = 1.0, .height = 1.0, .nx = 32, .ny = 32};
        int di = 0, pl = 0;
        if ((rc = get_double(s, sec, "width", &d.width, err)) ||
            (rc = get_double(s, sec, "height", &d.height, err)) ||
            (rc = get_int(s, sec, "nx", &d.nx, err)) ||
            (rc = get_int(s, sec, "ny", &d.ny, err)) ||
            (rc = get_enum(s, sec, "diagonals", diag, &di, err)) ||
            (rc = get_enum(s, sec, "plane", plane, &pl, err)) ||
            (rc = get_vec3(s, sec, "origin", d.origin, err)))
            return rc;
        if ((long long)d.nx * d.ny > WEFT_MAX_VERTICES) {
            char msg[160];
            snprintf(msg, sizeof msg, "%d x %d vertices is beyond the limit of %d vertices "
                     "(WEFT_MAX_VERTICES)", d.nx, d.ny, WEFT_MAX_VERTICES);
            const entry *e = weft_scene_find(s, sec, "nx");
            return weft_scene_bad(e ? e : weft_scene_find(s, sec, "ny"), err, "%s", msg);
        }
        d.diagonals = di ? WEFT_DIAG_REGULAR : WEFT_DIAG_ALTERNATING;
        d.plane = pl ? WEFT_PLANE_XZ : WEFT_PLANE_XY;
        char w[32], h[32];
        snprintf(source, source_size, "grid nx=%d ny=%d diagonals=%s plane=%s width=%s "
                 "height=%s", d.nx, d.ny, diag[di], plane[pl], exact(d.width, w),
                 exact(d.height, h));
        rc = weft_mesh_grid(mesh, &d, err);
    } else if (type == ICOSPHERE) {
        double radius = 0.25, center[3] = {0, 0, 0};
        int sub = 3;
        if ((rc = get_double(s, sec, "radius", &radius, err)) ||
            (rc = get_int(s, sec, "subdivisions", &sub, err)) ||
            (rc = get_vec3(s, sec, "center", center, err)))
            return rc;
        char r[32];
        snprintf(source, source_size, "icosphere radius=%s subdivisions=%d", exact(radius, r),
                 sub);
        rc = weft_mesh_icosphere(mesh, radius, sub, center, err);
    } else if (type == TET_BLOCK) {
        double size[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
        int cells[3] = {4, 4, 4};
        if ((rc = get_vec3(s, sec, "size", size, err)) ||
            (rc = get_int3(s, sec, "cells", cells, err)) ||
            (rc = get_vec3(s, sec, "origin", origin, err)))
            return rc;
        for (int k = 0; k < 3; k++)
            if (!(size[k] > 0 && size[k] <= 1e6))
                return weft_scene_bad(weft_scene_find(s, sec, "size"), err, "%s",
                           "every side must lie in (0, 1e6] m");
        long long nv = (cells[0] + 1LL) * (cells[1] + 1LL) * (cells[2] + 1LL),
                  ntet = 6LL * cells[0] * cells[1] * cells[2];
        if (nv > WEFT_MAX_VERTICES || ntet > WEFT_MAX_ELEMENTS) {
            char msg[200];
            snprintf(msg, sizeof msg, "%lld vertices and %lld tetrahedra is beyond the limit "
                     "of %d and %d (WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS)", nv, ntet,
                     WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS);
            return weft_scene_bad(weft_scene_find(s, sec, "cells"), err, "%s", msg);
        }
        char a[32], b[32], c[32];
        snprintf(source, source_size, "tet_block cells=%dx%dx%d size=%s %s %s", cells[0],
                 cells[1], cells[2], exact(size[0], a), exact(size[1], b), exact(size[2], c));
        rc = weft_mesh_tet_block(mesh, size, cells, origin, err);
    } else {
        const entry *p = weft_scene_find(s, sec, "path");
        if (!p) {
            char what[200];
            snprintf(what, sizeof what, "type %s needs %s.path", types[type], sec);
            return weft_scene_bad(weft_scene_find(s, sec, "type"), err, "%s", what);
        }
        char path[1024];
        if (p->value[0] == '/' || !s->dir)
            snprintf(path, sizeof path, "%s", p->value);
        else
            snprintf(path, sizeof path, "%s%s", s->dir, p->value);
        double scale = 1.0, translate[3] = {0, 0, 0};
        if ((rc = get_double(s, sec, "scale", &scale, err)) ||
            (rc = get_vec3(s, sec, "translate", translate, err)))
            return rc;
        char sc[32];
        snprintf(source, source_size, "%s path=%s scale=%s", types[type], path, exact(scale, sc));
        weft_error merr = {{0}};
        rc = type == OBJ ? weft_mesh_read_obj(mesh, path, &merr)
                         : weft_mesh_read_tetgen(mesh, path, &merr);
        if (rc) { /* the scene's file:line and key, then the reader's path:line message */
            char w[400];
            weft_scene_where(p, w, sizeof w);
            return weft_fail(err, rc, "%s: %s.%s: %s", w, p->section, p->key, merr.msg);
        }
        /* A positive scale and a translation keep orientation, closedness and topology. */
        for (int i = 0; rc == WEFT_OK && i < mesh->nv; i++)
            for (int k = 0; k < 3; k++)
                mesh->x[3 * i + k] = scale * mesh->x[3 * i + k] + translate[k];
    }
    if (rc) return rc;
    /* Rest shape of triangle energies: the material coordinates (uv, in metres) or the
     * rest positions. A grid's uv is its flat layout, so both agree there and uv also
     * fixes the warp/weft axes; an OBJ's vt are often texture coordinates in [0, 1], not
     * metres, so OBJ meshes use their positions unless the scene asks for uv. */
    *use_uv = shape == 2 || (shape == 0 && type == GRID);
    if (*use_uv && !(mesh->nuv > 0 && mesh->tri_uv)) {
        weft_mesh_free(mesh);
        return weft_scene_bad(weft_scene_find(s, sec, "rest_shape"), err, "%s",
                   "rest_shape = uv needs material coordinates (vt lines in the OBJ file)");
    }
    return WEFT_OK;
}

/* Records the rest shape of part's triangles (appended after those of earlier parts). */
static int add_rest_shape(rest_shape *rs, int nt_before, const weft_mesh *pm, bool use_uv,
                          weft_error *err) {
    size_t nt = (size_t)nt_before + (size_t)pm->nt;
    double *uv = realloc(rs->uv, (nt > 0 ? 6 * nt : 1) * sizeof *uv);
    if (uv) rs->uv = uv;
    unsigned char *on = realloc(rs->on, nt > 0 ? nt : 1);
    if (on) rs->on = on;
    if (!uv || !on) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    for (int t = 0; t < pm->nt; t++) {
        size_t g = (size_t)nt_before + (size_t)t;
        on[g] = use_uv;
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 2; k++)
                uv[6 * g + 2 * a + k] = use_uv ? pm->uv[2 * pm->tri_uv[3 * t + a] + k] : 0.0;
    }
    return WEFT_OK;
}

/* Reads a part's velocity and (for a [mesh.NAME] part) density into p. */
static int read_part_keys(const weft_scene *s, const char *sec, weft_part *p, weft_error *err) {
    int rc = get_vec3(s, sec, "velocity", p->velocity, err);
    if (rc) return rc;
    if (strcmp(sec, "mesh") == 0) {
        const entry *d = weft_scene_find(s, "mesh", "density");
        if (d)
            return weft_scene_bad(d, err, "%s", "the primary mesh takes material.density; density "
                       "overrides it for a [mesh.NAME] part");
        return WEFT_OK;
    }
    return get_double(s, sec, "density", &p->density, err);
}

/* Builds the model's mesh and its parts: [mesh], then each [mesh.NAME] in file order,
 * each appended as a separate connected component (a part's own topology is checked by
 * its generator or reader, with file:line for an OBJ, before it is appended), then one
 * topology build over the union. Fills m->parts and the rest shape of every triangle. */
static int build_mesh(const weft_scene *s, weft_model *m, rest_shape *rs, weft_error *err) {
    /* The part sections, by their first entry. */
    int nparts = 1;
    for (int i = 0; i < s->n; i++) {
        const char *sec = s->e[i].section;
        nparts += strncmp(sec, "mesh.", 5) == 0 && first_entry(s, sec) == &s->e[i];
    }
    m->parts = calloc((size_t)nparts, sizeof *m->parts);
    if (!m->parts) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    m->nparts = 1;
    weft_mesh *mesh = &m->mesh;
    bool use_uv;
    char source[sizeof m->parts[0].source];
    int rc = build_part_mesh(s, "mesh", mesh, &use_uv, source, sizeof source, err);
    if (rc) return rc;
    weft_part *p0 = &m->parts[0];
    *p0 = (weft_part){.first = 0, .nv = mesh->nv, .first_tri = 0, .nt = mesh->nt,
                      .grid_nx = mesh->grid_nx, .grid_ny = mesh->grid_ny,
                      .density = m->material.density};
    snprintf(p0->source, sizeof p0->source, "%s", source);
    if ((rc = read_part_keys(s, "mesh", p0, err)) ||
        (rc = add_rest_shape(rs, 0, mesh, use_uv, err)))
        return rc;
    if (nparts == 1) return WEFT_OK; /* the mesh as its generator or reader made it */

    for (int i = 0; i < s->n; i++) {
        const char *sec = s->e[i].section;
        if (strncmp(sec, "mesh.", 5) != 0 || first_entry(s, sec) != &s->e[i]) continue;
        if (mesh->ntet > 0)
            return weft_scene_bad(weft_scene_find(s, "mesh", "type"), err, "%s",
                       "a tetrahedral mesh cannot be combined with [mesh.NAME] parts");
        weft_part *p = &m->parts[m->nparts];
        if (strlen(sec + 5) >= sizeof p->name)
            return weft_scene_bad(&s->e[i], err, "%s", "the part's name is longer than 63 characters");
        weft_mesh pm = {0};
        if ((rc = build_part_mesh(s, sec, &pm, &use_uv, p->source, sizeof p->source, err))) {
            weft_mesh_free(&pm);
            return rc;
        }
        if ((long long)mesh->nv + pm.nv > WEFT_MAX_VERTICES ||
            (long long)mesh->nt + pm.nt > WEFT_MAX_ELEMENTS) {
            char msg[200];
            snprintf(msg, sizeof msg, "with this part the model has %lld vertices and %lld "
                     "triangles, beyond the limit of %d and %d (WEFT_MAX_VERTICES, "
                     "WEFT_MAX_ELEMENTS)", (long long)mesh->nv + pm.nv,
                     (long long)mesh->nt + pm.nt, WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS);
            weft_mesh_free(&pm);
            return weft_scene_bad(&s->e[i], err, "%s", msg);
        }
        snprintf(p->name, sizeof p->name, "%s", sec + 5);
        p->first = mesh->nv, p->nv = pm.nv, p->first_tri = mesh->nt, p->nt = pm.nt;
        p->grid_nx = pm.grid_nx, p->grid_ny = pm.grid_ny;
        p->density = m->material.density;
        if (!(rc = read_part_keys(s, sec, p, err)) &&
            !(rc = add_rest_shape(rs, mesh->nt, &pm, use_uv, err)))
            rc = weft_mesh_append(mesh, &pm, err);
        weft_mesh_free(&pm);
        if (rc) return rc;
        m->nparts++;
    }
    /* Disjoint components of meshes that passed their own checks pass again: this
     * derives the union's edges, hinges and boundary. */
    return weft_mesh_build_topology(mesh, "mesh", err);
}

/* The part a pin group's `mesh` key names (the primary [mesh] without the key); NULL with
 * the error in err if there is no such part. */
static const weft_part *pin_part(const weft_scene *s, const char *section, const weft_model *m,
                                 weft_error *err) {
    const entry *e = weft_scene_find(s, section, "mesh");
    if (!e) return &m->parts[0];
    for (int p = 1; p < m->nparts; p++)
        if (strcmp(m->parts[p].name, e->value) == 0) return &m->parts[p];
    char list[160] = "";
    for (int p = 1; p < m->nparts; p++) {
        strncat(list, p > 1 ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, m->parts[p].name, sizeof list - strlen(list) - 1);
    }
    char full[290];
    if (m->nparts > 1)
        snprintf(full, sizeof full, "no part '%.60s' (the [mesh.NAME] parts are: %s)", e->value,
                 list);
    else
        snprintf(full, sizeof full, "no part '%.60s' (the scene has no [mesh.NAME] parts)",
                 e->value);
    weft_scene_bad(e, err, "%s", full);
    return NULL;
}

/* Adds one pin group (a [pins] or [pins.NAME] section) to the model. Indices, corners and
 * edges are those of the part its `mesh` key names (the primary [mesh] by default); a box
 * holds the vertices of that part when the key is given, else of every part. */
static int build_pins(const weft_scene *s, const char *section, weft_model *m, weft_error *err) {
    weft_pin_path path = {0};
    int motion = 0, rc;
    if ((rc = get_enum(s, section, "motion", pin_motions, &motion, err)) ||
        (rc = get_vec3(s, section, "velocity", path.velocity, err)) ||
        (rc = get_vec3(s, section, "angular_velocity", path.omega, err)) ||
        (rc = get_vec3(s, section, "center", path.center, err)))
        return rc;
    path.motion = (weft_pin_motion)motion;
    weft_pin_path *paths = realloc(m->paths, (size_t)(m->npaths + 1) * sizeof *paths);
    if (!paths) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    m->paths = paths;
    int id = m->npaths++;
    paths[id] = path;

    const weft_mesh *mesh = &m->mesh;
    const weft_part *part = pin_part(s, section, m, err);
    if (!part) return WEFT_ERR_INPUT;
    const int nx = part->grid_nx, ny = part->grid_ny, first = part->first;
    char part_sec[80]; /* "mesh" or "mesh.NAME", for messages */
    snprintf(part_sec, sizeof part_sec, "%s%s", part->name[0] ? "mesh." : "mesh", part->name);
    const entry *e;
    if ((e = weft_scene_find(s, section, "vertices"))) {
        char *buf = dupstr(e->value), *save = NULL;
        if (!buf) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
            char *end;
            errno = 0;
            long i = strtol(tok, &end, 10);
            if (*end || end == tok || errno) {
                rc = weft_scene_bad(e, err, "'%s' is not a vertex index", tok);
            } else if (i < 0 || i >= part->nv) {
                char msg[200];
                snprintf(msg, sizeof msg, "vertex index %ld out of range (%s has %d vertices, "
                         "indices from 0)", i, part_sec, part->nv);
                rc = weft_scene_bad(e, err, "%s", msg);
            } else {
                m->pin[first + i] = id;
                continue;
            }
            free(buf);
            return rc;
        }
        free(buf);
    }
    /* box: every vertex whose rest position lies in the closed box, on any mesh. */
    double box[6];
    bool has_box = false;
    if ((rc = get_box(s, section, "box", box, &has_box, err))) return rc;
    if (has_box) {
        int count = 0;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        const bool one_part = weft_scene_find(s, section, "mesh") != NULL;
        const int begin = one_part ? first : 0, end = one_part ? first + part->nv : m->n;
        for (int i = begin; i < end; i++) {
            const double *x = &mesh->x[3 * i];
            bool inside = true;
            for (int k = 0; k < 3; k++) {
                inside = inside && x[k] >= box[k] && x[k] <= box[k + 3];
                lo[k] = fmin(lo[k], x[k]), hi[k] = fmax(hi[k], x[k]);
            }
            if (inside) m->pin[i] = id, count++;
        }
        if (count == 0) {
            char msg[290];
            snprintf(msg, sizeof msg, "the box holds no vertex (the %s spans x [%g, %g], "
                     "y [%g, %g], z [%g, %g] m)", one_part ? part_sec : "mesh", lo[0], hi[0],
                     lo[1], hi[1], lo[2], hi[2]);
            return weft_scene_bad(weft_scene_find(s, section, "box"), err, "%s", msg);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *key = pass ? "edges" : "corners";
        const char *const *names = pass ? edge_names : corner_names;
        if (!(e = weft_scene_find(s, section, key))) continue;
        if (nx == 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "named corners and edges need a grid mesh (%s is not one)",
                     part_sec);
            return weft_scene_bad(e, err, "%s", msg);
        }
        char *buf = dupstr(e->value), *save = NULL;
        if (!buf) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        for (char *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
            int which = -1;
            for (int i = 0; names[i]; i++)
                if (!strcmp(tok, names[i])) which = i;
            if (which < 0) {
                char msg[200];
                snprintf(msg, sizeof msg, "'%s' is not one of: %s", tok,
                         pass ? "bottom, top, left, right"
                              : "bottom_left, bottom_right, top_left, top_right");
                rc = weft_scene_bad(e, err, "%s", msg);
                free(buf);
                return rc;
            }
            if (!pass) { /* corner: (i, j) with i along u (width), j along v (height) */
                int i = (which & 1) ? nx - 1 : 0, j = (which & 2) ? ny - 1 : 0;
                m->pin[first + i + j * nx] = id;
            } else if (which < 2) { /* bottom (j = 0) or top (j = ny - 1) row */
                int j = which ? ny - 1 : 0;
                for (int i = 0; i < nx; i++) m->pin[first + i + j * nx] = id;
            } else { /* left (i = 0) or right (i = nx - 1) column */
                int i = which == 3 ? nx - 1 : 0;
                for (int j = 0; j < ny; j++) m->pin[first + i + j * nx] = id;
            }
        }
        free(buf);
    }
    return WEFT_OK;
}

/* v as a person writes a bound: 1e9 rather than %g's 1e+09. */
static void plain_bound(double v, char *buf, size_t n) {
    int ex = v != 0.0 ? (int)floor(log10(fabs(v))) : 0;
    if (abs(ex) < 5)
        snprintf(buf, n, "%g", v);
    else
        snprintf(buf, n, "%ge%d", v / pow(10.0, ex), ex);
}

/* Reads key q of a collider's type from section into c->param, each component within
 * q's range; keeps the default if absent. */
static int get_collider_param(const weft_scene *s, const char *section,
                              const weft_collider_param *q, weft_collider *c, weft_error *err) {
    const entry *e = weft_scene_find(s, section, q->key);
    if (!e) return WEFT_OK;
    double v[3];
    int rc;
    if (q->n == 3) {
        if ((rc = get_vec3(s, section, q->key, v, err))) return rc;
    } else if ((rc = weft_scene_number(e, e->value, &v[0], err))) {
        return rc;
    }
    const bool lo_open = q->flags & WEFT_PARAM_LO_OPEN, hi_open = q->flags & WEFT_PARAM_HI_OPEN;
    for (int k = 0; k < q->n && q->lo < q->hi; k++) {
        if ((lo_open ? v[k] > q->lo : v[k] >= q->lo) && (hi_open ? v[k] < q->hi : v[k] <= q->hi))
            continue;
        char range[160], lo[32], hi[32];
        if (q->n == 3) {
            plain_bound(q->lo, lo, sizeof lo), plain_bound(q->hi, hi, sizeof hi);
            snprintf(range, sizeof range, "every %s must lie in %s%s, %s%s %s",
                     q->each ? q->each : "component", lo_open ? "(" : "[", lo, hi,
                     hi_open ? ")" : "]", q->unit);
        } else {
            snprintf(range, sizeof range, "%s must lie in %s%g, %g%s", e->value,
                     lo_open ? "(" : "[", q->lo, q->hi, hi_open ? ")" : "]");
        }
        return weft_scene_bad(e, err, "%s", range);
    }
    for (int k = 0; k < q->n; k++) c->param[q->at + k] = v[k];
    return WEFT_OK;
}

/* The registered collider types' names and "mesh", joined by ", " into buf. */
static void collider_type_names(char *buf, size_t size) {
    int len = 0;
    buf[0] = '\0';
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++)
        weft_appendf(buf, size, &len, "%s, ", (*t)->name);
    weft_appendf(buf, size, &len, "mesh");
}

/* Adds the collider of a [collider.NAME] section: a registered shape, read through its
 * type's table, at rest or translating with its velocity. */
static int build_collider(const weft_scene *s, const char *section, weft_model *m,
                          weft_error *err) {
    const entry *te = weft_scene_find(s, section, "type");
    if (!te) {
        /* Point at the first key of the section. */
        for (int i = 0; i < s->n; i++)
            if (!strcmp(s->e[i].section, section)) {
                te = &s->e[i];
                break;
            }
        char names[200], full[240];
        collider_type_names(names, sizeof names);
        snprintf(full, sizeof full, "collider needs a type (%s)", names);
        return weft_scene_bad(te, err, "%s", full);
    }
    const weft_collider_type *type = weft_collider_find(te->value);
    if (!type) {
        char names[200], msg[290];
        collider_type_names(names, sizeof names);
        snprintf(msg, sizeof msg, "'%.60s' is not one of: %s", te->value, names);
        weft_suggest sg;
        weft_suggest_init(&sg, te->value);
        for (const weft_collider_type *const *t = weft_collider_registry; *t; t++)
            weft_suggest_offer(&sg, (*t)->name);
        weft_suggest_offer(&sg, "mesh");
        char h[96];
        hint(&sg, "", h, sizeof h);
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s", h);
        return weft_scene_bad(te, err, "%s", msg);
    }
    weft_collider c;
    weft_collider_init(&c, type);
    c.friction = 0.3, c.restitution = 0.0;
    snprintf(c.name, sizeof c.name, "%s", section + 9);
    /* A key of another shape's table does not apply to this one. */
    for (int i = 0; i < s->n; i++) {
        const entry *e = &s->e[i];
        if (strcmp(e->section, section) || weft_collider_param_find(type, e->key) ||
            !shape_with_key(e->key))
            continue;
        char keys[200], msg[290];
        int len = 0;
        keys[0] = '\0';
        for (const weft_collider_param *q = type->params; q && q->key; q++)
            weft_appendf(keys, sizeof keys, &len, "%s, ", q->key);
        weft_appendf(keys, sizeof keys, &len, "velocity, friction, restitution");
        snprintf(msg, sizeof msg, "does not apply to a %.40s collider (keys: %s)", type->name,
                 keys);
        return weft_scene_bad(e, err, "%s", msg);
    }
    int rc;
    for (const weft_collider_param *q = type->params; q && q->key; q++)
        if ((rc = get_collider_param(s, section, q, &c, err))) return rc;
    if ((rc = get_double(s, section, "friction", &c.friction, err)) ||
        (rc = get_double(s, section, "restitution", &c.restitution, err)) ||
        (rc = get_vec3(s, section, "velocity", c.velocity, err)))
        return rc;
    const char *key = NULL, *bad = type->prepare ? type->prepare(&c, &key) : NULL;
    if (bad) return weft_scene_bad(weft_scene_find(s, section, key), err, "%s", bad);
    weft_collider *cs = realloc(m->colliders, (size_t)(m->ncolliders + 1) * sizeof *cs);
    if (!cs) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    m->colliders = cs;
    cs[m->ncolliders++] = c;
    return WEFT_OK;
}

/* Adds the triangle-mesh obstacle of a [collider.NAME] section with type = mesh: an OBJ
 * file (path relative to the scene file) scaled and translated, moving at a constant
 * velocity. Only the collision pipeline handles it, so the scene must enable it. */
static int build_obstacle(const weft_scene *s, const char *section, weft_model *m,
                          weft_error *err) {
    const entry *te = weft_scene_find(s, section, "type");
    for (int i = 0; i < s->n; i++) { /* restitution and the shapes' keys */
        const entry *e = &s->e[i];
        if (!strcmp(e->section, section) &&
            (!strcmp(e->key, "restitution") || shape_with_key(e->key)))
            return weft_scene_bad(e, err, "%s",
                       "does not apply to a mesh collider (keys: path, scale, translate, "
                       "velocity, friction)");
    }
    const entry *pe = weft_scene_find(s, section, "path");
    if (!pe) return weft_scene_bad(te, err, "%s", "type mesh needs a path (an OBJ file)");
    weft_obstacle ob = {.friction = 0.3};
    snprintf(ob.name, sizeof ob.name, "%s", section + 9);
    {
        char w[300];
        weft_scene_where(te, w, sizeof w);
        snprintf(ob.where, sizeof ob.where, "%.300s: %.80s.type", w, section);
    }
    double scale = 1.0, translate[3] = {0, 0, 0};
    int rc;
    if ((rc = get_double(s, section, "scale", &scale, err)) ||
        (rc = get_vec3(s, section, "translate", translate, err)) ||
        (rc = get_vec3(s, section, "velocity", ob.velocity, err)) ||
        (rc = get_double(s, section, "friction", &ob.friction, err)))
        return rc;
    char path[1024];
    if (pe->value[0] == '/' || !s->dir)
        snprintf(path, sizeof path, "%s", pe->value);
    else
        snprintf(path, sizeof path, "%s%s", s->dir, pe->value);
    weft_error oerr = {{0}};
    if (weft_mesh_read_obj(&ob.mesh, path, &oerr) != WEFT_OK) {
        char w[400]; /* the scene's file:line, then the OBJ reader's path:line message */
        weft_scene_where(pe, w, sizeof w);
        return weft_fail(err, WEFT_ERR_INPUT, "%s: %s.%s: %s", w, pe->section, pe->key, oerr.msg);
    }
    for (int i = 0; i < ob.mesh.nv; i++)
        for (int k = 0; k < 3; k++)
            ob.mesh.x[3 * i + k] = scale * ob.mesh.x[3 * i + k] + translate[k];
    /* The pipeline needs a collision-free start: no cloth triangle may cross the obstacle
     * (the cloth's own intersections are counted apart and subtracted). */
    const weft_mesh *om = &ob.mesh;
    long with = weft_count_intersections(&m->mesh, m->x, 1, &om, NULL);
    long self = weft_count_intersections(&m->mesh, m->x, 0, NULL, NULL);
    if (with < 0 || self < 0 || with > self) {
        char msg[200];
        if (with < 0 || self < 0)
            snprintf(msg, sizeof msg, "cannot check the obstacle against the cloth (out of "
                     "memory or non-finite positions)");
        else
            snprintf(msg, sizeof msg, "the obstacle intersects the cloth at t = 0 (%ld triangle "
                     "pairs); the collision pipeline needs a collision-free start", with - self);
        weft_mesh_free(&ob.mesh);
        return weft_scene_bad(pe, err, "%s", msg);
    }
    weft_obstacle *obs = realloc(m->obstacles, (size_t)(m->nobstacles + 1) * sizeof *obs);
    if (!obs) {
        weft_mesh_free(&ob.mesh);
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    }
    m->obstacles = obs;
    obs[m->nobstacles++] = ob;
    return WEFT_OK;
}

/* True when a [collider.NAME] section has type = mesh. */
static bool is_mesh_collider(const weft_scene *s, const char *section) {
    const entry *te = weft_scene_find(s, section, "type");
    return te && strcmp(te->value, "mesh") == 0;
}

/* Builds one [collider.NAME] section: a triangle-mesh obstacle (type = mesh), or an
 * analytic collider (build_collider), which takes none of the mesh-only keys. */
static int build_collider_section(const weft_scene *s, const char *section, weft_model *m,
                                  weft_error *err) {
    if (is_mesh_collider(s, section)) return build_obstacle(s, section, m, err);
    static const char *const mesh_only[] = {"path", "scale", "translate", NULL};
    for (int i = 0; mesh_only[i]; i++) {
        const entry *e = weft_scene_find(s, section, mesh_only[i]);
        if (e) return weft_scene_bad(e, err, "%s", "applies only to a mesh collider (type = mesh)");
    }
    return build_collider(s, section, m, err);
}

/* The registered type called `name` acting on `kind`; NULL if there is none. Membrane
 * and volume variants of one model share a name and differ in kind. */
static const weft_energy_type *lookup(const weft_energy_type *const *reg, const char *name,
                                      weft_element_kind kind) {
    for (; reg && *reg; reg++)
        if (strcmp((*reg)->name, name) == 0 && (*reg)->kind == kind) return *reg;
    return NULL;
}

static bool registered(const weft_energy_type *const *reg, const char *name) {
    for (; reg && *reg; reg++)
        if (strcmp((*reg)->name, name) == 0) return true;
    return false;
}

/* The wings of every triangle (wing[3t + i]: the vertex across triangle t's edge opposite
 * its vertex i, or that vertex itself where the edge is on the boundary), from the edges'
 * adjacent triangles. */
static void tri_wings(const weft_mesh *mesh, int *wing) {
    for (int t = 0; t < mesh->nt; t++)
        for (int i = 0; i < 3; i++) wing[3 * t + i] = mesh->tri[3 * t + i];
    for (int ed = 0; ed < mesh->ne; ed++) {
        int t0 = mesh->edge_tri[2 * ed], t1 = mesh->edge_tri[2 * ed + 1];
        if (t0 < 0 || t1 < 0) continue;
        for (int side = 0; side < 2; side++) {
            int ta = side ? t1 : t0, tb = side ? t0 : t1, ia = -1, ob = -1;
            for (int i = 0; i < 3; i++) {
                int va = mesh->tri[3 * ta + i], vb = mesh->tri[3 * tb + i];
                if (va != mesh->edge[2 * ed] && va != mesh->edge[2 * ed + 1]) ia = i;
                if (vb != mesh->edge[2 * ed] && vb != mesh->edge[2 * ed + 1]) ob = vb;
            }
            if (ia >= 0 && ob >= 0) wing[3 * ta + ia] = ob;
        }
    }
}

/* Creates one term of `type` over the mesh's edges, hinges, triangles or tetrahedra.
 * Edges get a third of each adjacent triangle's rest area (the shares sum to the mesh's
 * area), hinges the full area of their two triangles (Grinspun 2003's Ā); triangles get
 * their material coordinates where their part's rest shape is uv. */
static int build_term(weft_model *m, const weft_energy_type *type, weft_energy_params p,
                      const double *tri_areas, const rest_shape *rs, weft_error *err) {
    const weft_mesh *mesh = &m->mesh;
    int n = 0;
    switch (type->kind) {
    case WEFT_ELEM_EDGE: n = mesh->ne; break;
    case WEFT_ELEM_HINGE: n = mesh->nh; break;
    case WEFT_ELEM_TRIANGLE:
    case WEFT_ELEM_TRI_HINGES: n = mesh->nt; break;
    case WEFT_ELEM_TET: n = mesh->ntet; break;
    default: return weft_fail(err, WEFT_ERR_INPUT, "energy '%s': no elements of its kind", type->name);
    }
    int *wing = NULL;
    if (type->kind == WEFT_ELEM_TRI_HINGES) {
        wing = malloc(3 * (size_t)(n > 0 ? n : 1) * sizeof *wing);
        if (!wing) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        tri_wings(mesh, wing);
    }
    if (m->nterms == WEFT_MAX_TERMS)
        return weft_fail(err, WEFT_ERR_INPUT, "more than %d energy terms", WEFT_MAX_TERMS);
    weft_term *t = &m->terms[m->nterms];
    t->type = type;
    t->n = n;
    t->elem = calloc((size_t)(n > 0 ? n : 1), sizeof *t->elem);
    if (!t->elem) {
        free(wing);
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    }
    m->nterms++;
    for (int i = 0; i < n; i++) {
        weft_element *e = &t->elem[i];
        double xe[3 * WEFT_ELEM_MAXV];
        const int *v = NULL;
        int tv[6];
        p.area = 0.0;
        p.uv = NULL;
        switch (type->kind) {
        case WEFT_ELEM_EDGE:
        case WEFT_ELEM_HINGE: {
            int edge = type->kind == WEFT_ELEM_EDGE ? i : mesh->hinge_edge[i];
            v = type->kind == WEFT_ELEM_EDGE ? &mesh->edge[2 * i] : &mesh->hinge[4 * i];
            for (int a = 0; a < 2; a++) {
                int tr = mesh->edge_tri[2 * edge + a];
                if (tr >= 0) p.area += tri_areas[tr];
            }
            if (type->kind == WEFT_ELEM_EDGE) p.area /= 3.0;
            break;
        }
        case WEFT_ELEM_TRIANGLE:
            v = &mesh->tri[3 * i];
            p.area = tri_areas[i];
            if (rs->on[i]) p.uv = &rs->uv[6 * (size_t)i];
            break;
        case WEFT_ELEM_TRI_HINGES:
            for (int a = 0; a < 3; a++) tv[a] = mesh->tri[3 * i + a], tv[3 + a] = wing[3 * i + a];
            v = tv;
            p.area = tri_areas[i];
            break;
        default: v = &mesh->tet[4 * i]; break;
        }
        for (int a = 0; a < type->nv; a++) {
            e->v[a] = v[a];
            for (int k = 0; k < 3; k++) xe[3 * a + k] = mesh->x[3 * v[a] + k];
        }
        type->init(e, xe, &p);
    }
    free(wing);
    return WEFT_OK;
}

/* The [material] keys naming an energy whose default the registry declares, and the role
 * each takes it from. */
static const struct {
    const char *key;
    weft_default_role role;
} energy_keys[] = {
    {"membrane", WEFT_DEFAULT_MEMBRANE},
    {"bending", WEFT_DEFAULT_BENDING},
    {"volume", WEFT_DEFAULT_SOLID},
};

weft_default_role weft_scene_key_role(const char *section, const char *key) {
    if (strcmp(section, "material") != 0) return WEFT_DEFAULT_NONE;
    for (size_t i = 0; i < sizeof energy_keys / sizeof energy_keys[0]; i++)
        if (strcmp(energy_keys[i].key, key) == 0) return energy_keys[i].role;
    return WEFT_DEFAULT_NONE;
}

/* True where a [material] key of `role` has a default on this mesh: membrane and bending
 * on a surface, solid on a tetrahedral mesh. */
static bool role_fits(weft_default_role role, bool volumetric) {
    if (role == WEFT_DEFAULT_NONE) return false;
    return (role == WEFT_DEFAULT_SOLID) == volumetric;
}

const weft_energy_type *weft_energy_default(const weft_energy_type *const *registry,
                                            weft_default_role role) {
    for (; role != WEFT_DEFAULT_NONE && registry && *registry; registry++)
        if ((*registry)->default_for == role) return *registry;
    return NULL;
}

const char *weft_scene_energy_default(const weft_energy_type *const *registry,
                                      weft_default_role role, bool volumetric) {
    const weft_energy_type *t = role_fits(role, volumetric) ? weft_energy_default(registry, role)
                                                            : NULL;
    return t ? t->name : "none";
}

/* One role of the material: the scene key naming its energy, the element kinds it may act
 * on, and where the model records the term. */
typedef struct term_role {
    const char *key;
    weft_element_kind kinds[2];
    int *slot;
    double stiffness;
} term_role;

/* Builds the energy terms the [material] section names. "none" leaves a role empty. */
static int build_terms(const weft_scene *s, const weft_energy_type *const *registry,
                       weft_model *m, const double *tri_areas, const rest_shape *rs,
                       weft_error *err) {
    const weft_material *mat = &m->material;
    bool volumetric = m->mesh.ntet > 0;
    m->stretch_term = m->bending_term = m->volume_term = m->fiber_term = -1;
    term_role roles[4] = {
        {"membrane", {WEFT_ELEM_EDGE, WEFT_ELEM_TRIANGLE}, &m->stretch_term,
         mat->stretch_stiffness},
        {"bending", {WEFT_ELEM_HINGE, WEFT_ELEM_TRI_HINGES}, &m->bending_term, mat->bending_stiffness},
        {"volume", {WEFT_ELEM_TET, WEFT_ELEM_TET}, &m->volume_term, mat->youngs_modulus},
        {"fiber", {volumetric ? WEFT_ELEM_TET : WEFT_ELEM_TRIANGLE,
                   volumetric ? WEFT_ELEM_TET : WEFT_ELEM_TRIANGLE},
         &m->fiber_term, mat->stretch_stiffness},
    };
    for (int r = 0; r < 4; r++) {
        const entry *e = weft_scene_find(s, "material", roles[r].key);
        const char *name = e ? e->value : "none";
        const weft_energy_type *type = NULL;
        weft_default_role role = weft_scene_key_role("material", roles[r].key);
        if (!e && role_fits(role, volumetric)) {
            type = weft_energy_default(registry, role);
            if (!type || !type->init)
                return weft_fail(err, WEFT_ERR_INPUT, "no registered energy is the default of "
                                 "[material] %s: name one there", roles[r].key);
            name = type->name;
        }
        if (strcmp(name, "none") == 0) continue;
        if (!type) type = lookup(registry, name, roles[r].kinds[0]);
        if (!type) type = lookup(registry, name, roles[r].kinds[1]);
        if (!type || !type->init) {
            if (!registered(registry, name)) {
                weft_suggest sg;
                weft_suggest_init(&sg, name);
                for (const weft_energy_type *const *t = registry; t && *t; t++)
                    weft_suggest_offer(&sg, (*t)->name);
                const char *best = weft_suggest_best(&sg);
                char what[300];
                snprintf(what, sizeof what, "unknown energy '%.80s' (%s%.80s%s./weft list names "
                         "them all)", name, best ? "nearest: " : "", best ? best : "",
                         best ? "; " : "");
                return weft_scene_bad(e, err, "%s", what);
            }
            char what[160];
            snprintf(what, sizeof what, "energy '%s' has no variant for %s", name,
                     volumetric ? "a tetrahedral mesh" : roles[r].key);
            return weft_scene_bad(e, err, "%s", what);
        }
        if (type->kind == WEFT_ELEM_TET && !volumetric)
            return weft_scene_bad(e, err, "%s", "a volume energy needs a tetrahedral mesh");
        weft_energy_params p = {.stiffness = roles[r].stiffness, .poisson = mat->poisson,
                                .fiber = {mat->fiber[0], mat->fiber[1], mat->fiber[2]},
                                .fiber_stiffness = mat->fiber_stiffness};
        *roles[r].slot = m->nterms;
        int rc = build_term(m, type, p, tri_areas, rs, err);
        if (rc) return rc;
    }
    return WEFT_OK;
}

/* [mesh] reorder = none | rcm: renumbers the built model's vertices (lib/linalg/reorder.c), each
 * part's within its block. A whole-model setting, so a [mesh.NAME] part cannot give it. */
static int reorder_vertices(const weft_scene *s, weft_model *m, weft_error *err) {
    for (int i = 0; i < s->n; i++)
        if (strncmp(s->e[i].section, "mesh.", 5) == 0 && strcmp(s->e[i].key, "reorder") == 0)
            return weft_scene_bad(&s->e[i], err, "%s", "reorder renumbers the whole model: give it in [mesh]");
    int which = 0, rc = get_enum(s, "mesh", "reorder", reorders, &which, err);
    if (rc || which == 0) return rc;
    int *perm = malloc((size_t)(m->n > 0 ? m->n : 1) * sizeof *perm);
    if (!perm) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    rc = weft_model_rcm_order(m, perm, err);
    if (!rc) rc = weft_model_permute(m, perm, err);
    free(perm);
    return rc;
}

int weft_scene_build(const weft_scene *s, const weft_energy_type *const *registry,
                     weft_model *m, weft_error *err) {
    memset(m, 0, sizeof *m);
    int rc;
    snprintf(m->scene_name, sizeof m->scene_name, "%s", s->name);


    /* The name becomes a results directory: keep it one plain path component. */
    const entry *nm = weft_scene_find(s, "scene", "name");
    if (nm) {
        bool ok = nm->value[0] && strcmp(nm->value, ".") && strcmp(nm->value, "..");
        for (const char *p = nm->value; *p; p++)
            if (!isalnum((unsigned char)*p) && !strchr("_-.", *p)) ok = false;
        if (!ok)
            return weft_scene_bad(nm, err, "'%s' is not a scene name (letters, digits, '_', '-', '.')",
                       nm->value);
    }

    m->dt = 1.0 / 60.0;
    m->gravity[1] = -9.81;
    m->material = (weft_material){.density = 0.1, .stretch_stiffness = 1000.0,
                                  .bending_stiffness = 1e-4, .poisson = 0.3,
                                  .youngs_modulus = 1e5, .fiber = {1, 0, 0}};
    m->contact_margin = 1e-3;
    if ((rc = get_double(s, "scene", "dt", &m->dt, err)) ||
        (rc = get_vec3(s, "scene", "gravity", m->gravity, err)) ||
        (rc = get_double(s, "material", "density", &m->material.density, err)) ||
        (rc = get_double(s, "material", "stretch_stiffness", &m->material.stretch_stiffness, err)) ||
        (rc = get_double(s, "material", "bending_stiffness", &m->material.bending_stiffness, err)) ||
        (rc = get_double(s, "material", "poisson_ratio", &m->material.poisson, err)) ||
        (rc = get_double(s, "material", "youngs_modulus", &m->material.youngs_modulus, err)) ||
        (rc = get_vec3(s, "material", "fiber_direction", m->material.fiber, err)) ||
        (rc = get_double(s, "material", "fiber_stiffness", &m->material.fiber_stiffness, err)) ||
        (rc = get_double(s, "collision", "margin", &m->contact_margin, err)))
        return rc;
    /* Value-type checks for the free-form keys, so that a typo in a string key of the
     * right section is still reported even if this scene never reads it. */
    for (int i = 0; i < s->n; i++) {
        const schema_key *k = schema_find(s->e[i].section, s->e[i].key);
        if (!k && section_owned(s->e[i].section))
            return weft_scene_bad(&s->e[i], err, "%s", "unknown key");
        if (!k) continue; /* a plug-in's key: its settings table checks it */
        if (k->type == WEFT_KEY_NUMBER) {
            double v;
            if ((rc = weft_scene_number(&s->e[i], s->e[i].value, &v, err))) return rc;
        }
    }

    rest_shape rs = {0};
    if ((rc = build_mesh(s, m, &rs, err))) goto fail;
    const weft_mesh *mesh = &m->mesh;
    /* Density is per area for surfaces and per volume for solids: a solid scene that does
     * not give it gets water's 1000 kg/m^3, not the cloth default. */
    if (mesh->ntet > 0 && !weft_scene_find(s, "material", "density")) m->material.density = 1000.0;
    m->parts[0].density = m->material.density;
    m->n = mesh->nv;
    size_t n3 = 3 * (size_t)m->n;
    m->x = malloc(n3 * sizeof *m->x);
    m->v = calloc(n3, sizeof *m->v);
    m->x_start = malloc(n3 * sizeof *m->x_start);
    m->mass = calloc((size_t)m->n, sizeof *m->mass);
    m->w = calloc((size_t)m->n, sizeof *m->w);
    m->pin = malloc((size_t)m->n * sizeof *m->pin);
    double *areas = malloc((size_t)(mesh->nt > 0 ? mesh->nt : 1) * sizeof *areas);
    if (!m->x || !m->v || !m->x_start || !m->mass || !m->w || !m->pin || !areas) {
        free(areas);
        rc = weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(m->x, mesh->x, n3 * sizeof *m->x);
    memcpy(m->x_start, mesh->x, n3 * sizeof *m->x);
    for (int i = 0; i < m->n; i++) m->pin[i] = -1;

    /* Lumped masses (Müller 2006 §4.1): a third of each adjacent triangle's mass, with the
     * density of the triangle's part, or for a tetrahedral mesh a quarter of each adjacent
     * tetrahedron's, m_i = Σ ρ V_t / 4. */
    for (int p = 0; p < m->nparts; p++) {
        const weft_part *pt = &m->parts[p];
        for (int t = pt->first_tri; t < pt->first_tri + pt->nt; t++) {
            areas[t] = tri_area(mesh->x, &mesh->tri[3 * t]);
            if (mesh->ntet == 0)
                for (int a = 0; a < 3; a++)
                    m->mass[mesh->tri[3 * t + a]] += pt->density * areas[t] / 3.0;
        }
    }
    for (int t = 0; t < mesh->ntet; t++) {
        double mt = m->material.density * weft_mesh_tet_volume(mesh, NULL, t);
        for (int a = 0; a < 4; a++) m->mass[mesh->tet[4 * t + a]] += mt / 4.0;
    }

    /* Pins: [pins] and every [pins.NAME], in file order. */
    for (int i = 0; i < s->n && rc == WEFT_OK; i++) {
        const char *sec = s->e[i].section;
        if (strcmp(section_family(sec), "pins") != 0) continue;
        bool seen = false;
        for (int j = 0; j < i; j++)
            if (!strcmp(s->e[j].section, sec)) seen = true;
        if (!seen) rc = build_pins(s, sec, m, err);
    }
    for (int i = 0; i < s->n && rc == WEFT_OK; i++) {
        const char *sec = s->e[i].section;
        if (strcmp(section_family(sec), "collider") != 0) continue;
        bool seen = false;
        for (int j = 0; j < i; j++)
            if (!strcmp(s->e[j].section, sec)) seen = true;
        if (!seen) rc = build_collider_section(s, sec, m, err);
    }
    for (int p = 0; p < m->nparts && rc == WEFT_OK; p++) {
        const weft_part *pt = &m->parts[p];
        for (int i = pt->first; i < pt->first + pt->nv; i++) {
            if (!(m->mass[i] > 0.0) && m->pin[i] < 0) {
                rc = weft_fail(err, WEFT_ERR_INPUT, "mesh%s%s: vertex %d belongs to no %s",
                               pt->name[0] ? "." : "", pt->name, i - pt->first,
                               mesh->ntet > 0 ? "tetrahedron" : "triangle");
                break;
            }
            m->w[i] = m->pin[i] >= 0 ? 0.0 : 1.0 / m->mass[i];
            /* Free vertices start with their part's velocity; pinned ones follow their path. */
            if (m->pin[i] < 0)
                for (int k = 0; k < 3; k++) m->v[3 * i + k] = pt->velocity[k];
        }
    }
    if (rc) {
        free(areas);
        goto fail;
    }

    /* The physical model: membrane, bending, volume and fibre terms. */
    rc = build_terms(s, registry, m, areas, &rs, err);
    free(areas);
    if (rc) goto fail;

    m->rest_volume = mesh->closed ? weft_mesh_volume(mesh, mesh->x) : 0.0;
    if ((rc = reorder_vertices(s, m, err))) goto fail;
    rest_shape_free(&rs);
    return WEFT_OK;
fail:
    rest_shape_free(&rs);
    weft_model_free(m);
    return rc;
}
