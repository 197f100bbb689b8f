/* config_internal.h — the layout of a weft_config, shared by lib/params.c (look-ups,
 * formatting, assignments) and lib/scene/settings.c (making one from a scene). */
#ifndef WEFT_CONFIG_INTERNAL_H
#define WEFT_CONFIG_INTERNAL_H

#include "weft.h"

/* One plug-in's settings in a config. */
typedef struct weft_config_item {
    weft_plugin p;
    void *data; /* p.size bytes (at least 1) */
    bool taken; /* handed out since the last weft_config_mark_clear */
} weft_config_item;

/* Where a setting's value came from. */
typedef struct weft_config_origin {
    char section[64], key[64];
    char where[320]; /* "file:line", or "--set section.key=value" */
} weft_config_origin;

struct weft_config {
    int n;
    weft_config_item *it;
    int norigin, caporigin;
    weft_config_origin *origin; /* one per section.key given (the last wins) */
};

/* Records that section.key was given at `where`; WEFT_ERR_NOMEM if it cannot. */
int weft_config_note_origin(weft_config *c, const char *section, const char *key,
                            const char *where);

#endif
