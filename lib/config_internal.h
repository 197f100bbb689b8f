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

struct weft_config {
    int n;
    weft_config_item *it;
};

#endif
