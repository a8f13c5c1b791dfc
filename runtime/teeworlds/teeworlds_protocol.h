/* Teeworlds protocols: 0.6 (with DDNet's extensions) and 0.7, chosen by
 * the demo header's net version. Each is a set of generated tables
 * (generated/teeworlds_proto.h, teeworlds_proto7.h): pre-agreed item
 * sizes, object and message descriptors with their fields' ranges.
 * DDNet's extension objects and messages (identified by UUID) are the
 * same in both. Also the checks that count what does not fit the
 * protocol a demo is read with (item sizes, ranges, message bodies). */
#ifndef ZDEM_TEEWORLDS_PROTOCOL_H
#define ZDEM_TEEWORLDS_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include "teeworlds_demo.h"
#include "teeworlds_proto.h"
#include "teeworlds_proto7.h"
#include "teeworlds_snap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_tw_protocol {
    const char *name;              /* "0.6" or "0.7" */
    const char *net_version;       /* the header's net version that selects it */
    int version;                   /* 6 or 7 */
    const uint8_t *static_sizes;   /* pre-agreed item sizes by type */
    size_t num_static_sizes;
    const zdem_tw_obj_desc *objs;  /* fixed-id objects (0.6: and the extensions) */
    size_t num_objs;
    const zdem_tw_msg_desc *msgs;
    size_t num_msgs;
    /* 1: every field of every object and message is in the schema with
     * its range, so a value outside it or a body that does not decode is
     * a mismatch (0.7); 0: items and messages are not checked (0.6,
     * whose DDNet extensions grow). */
    int strict;
} zdem_tw_protocol;

extern const zdem_tw_protocol zdem_tw_protocol_06;
extern const zdem_tw_protocol zdem_tw_protocol_07;

/* The protocol of a net version: "0.6 626fce9a778df4d4" (Teeworlds 0.6 and
 * DDNet) or "0.7 802f1be60a05665f"; *known = 1. Any other is read with the
 * closest: 0.7 when it begins "0.7", else 0.6; *known = 0. */
const zdem_tw_protocol *zdem_tw_protocol_select(zdem_tw_str net_version, int *known);

/* A fixed-id object by type; NULL if the protocol has none. */
const zdem_tw_obj_desc *zdem_tw_protocol_obj(const zdem_tw_protocol *p, int type_id);
/* The i-th object the protocol knows (0.7: its own, then DDNet's
 * extension objects); NULL past the last. */
const zdem_tw_obj_desc *zdem_tw_protocol_obj_at(const zdem_tw_protocol *p, size_t i);
/* An object by its schema name; NULL if none. */
const zdem_tw_obj_desc *zdem_tw_protocol_obj_by_name(const zdem_tw_protocol *p, const char *name);
/* The descriptor of item i of a snapshot: a fixed type, or an extension
 * type through the snapshot's type-0 registration item. NULL: unknown (keep
 * the raw ints) or a registration item itself. */
const zdem_tw_obj_desc *zdem_tw_protocol_item_desc(const zdem_tw_protocol *p,
                                                   const zdem_tw_snap *snap, uint32_t i);
/* A message by (sys, id) or, for id 0, by UUID; NULL if unknown. */
const zdem_tw_msg_desc *zdem_tw_protocol_msg(const zdem_tw_protocol *p, int sys, int id,
                                             const uint8_t *uuid);
/* The i-th (object, field) of the protocol's objects, extensions included
 * (0.7 lists them after its own): 0 past the last. */
int zdem_tw_protocol_field_at(const zdem_tw_protocol *p, uint32_t i, const char **object,
                              const char **field, int *is_string);

/* 1 when an item does not fit its descriptor: a fixed object whose size
 * differs (pre_agreed: its size came from the pre-agreed table, already
 * checked by the snapshot layer) or a field outside its range. */
int zdem_tw_item_mismatch(const zdem_tw_obj_desc *d, const int32_t *data, uint32_t len,
                          int pre_agreed);
/* 1 when a message body does not decode with its descriptor's fields or
 * holds a value outside a field's range. */
int zdem_tw_msg_mismatch(const zdem_tw_msg_desc *d, const uint8_t *body, size_t n);

#ifdef __cplusplus
}
#endif

#endif
