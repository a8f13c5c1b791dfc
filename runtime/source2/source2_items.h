/* CS2 item names by item definition index (source2_items.c). */
#ifndef ZDEM_SOURCE2_ITEMS_H
#define ZDEM_SOURCE2_ITEMS_H

#include <stdint.h>

/* The name the game shows for an item definition index ("AK-47",
 * "C4 Explosive", "knife_t"), or NULL for one the table does not hold. */
const char *zdem_s2_item_name(uint64_t def);

#endif
