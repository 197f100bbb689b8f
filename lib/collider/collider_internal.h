/* collider_internal.h — what the collider files of lib/collider/ share. */
#ifndef WEFT_COLLIDER_INTERNAL_H
#define WEFT_COLLIDER_INTERNAL_H

#include "weft.h"

#endif
