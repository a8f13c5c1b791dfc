#include "teeworlds_protocol.h"
#include "teeworlds_msg.h"
#include "teeworlds_reader.h"

#include <string.h>

const zdem_tw_protocol zdem_tw_protocol_06 = {
    "0.6", "0.6 626fce9a778df4d4", 6,
    zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES,
    zdem_tw_obj_descs, ZDEM_TW_NUM_OBJ_DESCS,
    zdem_tw_msg_descs, ZDEM_TW_NUM_MSG_DESCS,
    0,
};

const zdem_tw_protocol zdem_tw_protocol_07 = {
    "0.7", ZDEM_TW7_NET_VERSION, 7,
    zdem_tw7_static_sizes, ZDEM_TW7_NUM_STATIC_SIZES,
    zdem_tw7_obj_descs, ZDEM_TW7_NUM_OBJ_DESCS,
    zdem_tw7_msg_descs, ZDEM_TW7_NUM_MSG_DESCS,
    1,
};

static int str_is(zdem_tw_str s, const char *c)
{
    size_t n = strlen(c);
    return s.n == n && memcmp(s.p, c, n) == 0;
}

const zdem_tw_protocol *zdem_tw_protocol_select(zdem_tw_str net_version, int *known)
{
    *known = 1;
    if (str_is(net_version, zdem_tw_protocol_06.net_version))
        return &zdem_tw_protocol_06;
    if (str_is(net_version, zdem_tw_protocol_07.net_version))
        return &zdem_tw_protocol_07;
    *known = 0;
    /* A mod's own hash or a later release keeps the major version: the
     * objects it shares with it keep their ids and sizes. */
    if (net_version.n >= 3 && memcmp(net_version.p, "0.7", 3) == 0)
        return &zdem_tw_protocol_07;
    return &zdem_tw_protocol_06;
}

const zdem_tw_obj_desc *zdem_tw_protocol_obj(const zdem_tw_protocol *p, int type_id)
{
    size_t i;
    if (type_id <= 0)
        return NULL;
    /* the tables list the fixed objects by type, from 1 */
    if ((size_t)type_id <= p->num_objs && p->objs[type_id - 1].type_id == type_id)
        return &p->objs[type_id - 1];
    for (i = 0; i < p->num_objs; i++)
        if (p->objs[i].type_id == type_id)
            return &p->objs[i];
    return NULL;
}

/* The extension objects: DDNet's, the same in both protocols. */
static const zdem_tw_obj_desc *ext_at(size_t *k)
{
    size_t i;
    for (i = 0; i < ZDEM_TW_NUM_OBJ_DESCS; i++)
        if (zdem_tw_obj_descs[i].uuid && (*k)-- == 0)
            return &zdem_tw_obj_descs[i];
    return NULL;
}

const zdem_tw_obj_desc *zdem_tw_protocol_obj_at(const zdem_tw_protocol *p, size_t i)
{
    if (i < p->num_objs)
        return &p->objs[i];
    if (p->objs == zdem_tw_obj_descs)
        return NULL;
    i -= p->num_objs;
    return ext_at(&i);
}

const zdem_tw_obj_desc *zdem_tw_protocol_obj_by_name(const zdem_tw_protocol *p, const char *name)
{
    const zdem_tw_obj_desc *d;
    size_t i;
    for (i = 0; (d = zdem_tw_protocol_obj_at(p, i)) != NULL; i++)
        if (d->name && strcmp(d->name, name) == 0)
            return d;
    return NULL;
}

int zdem_tw_protocol_field_at(const zdem_tw_protocol *p, uint32_t i, const char **object,
                              const char **field, int *is_string)
{
    const zdem_tw_obj_desc *d;
    size_t o;
    uint32_t k = i;
    for (o = 0; (d = zdem_tw_protocol_obj_at(p, o)) != NULL; o++) {
        if (!d->name)
            continue;
        if (k < d->num_fields) {
            *object = d->name;
            *field = d->fields[k].name;
            *is_string = d->fields[k].kind == ZDEM_TW_FIELD_PACKED_STR;
            return 1;
        }
        k -= d->num_fields;
    }
    return 0;
}

const zdem_tw_obj_desc *zdem_tw_protocol_item_desc(const zdem_tw_protocol *p,
                                                   const zdem_tw_snap *snap, uint32_t i)
{
    int type = zdem_tw_snap_type(snap, i);
    const zdem_tw_obj_desc *d;
    uint8_t uuid[16];
    if (type == 0)
        return NULL;
    if ((d = zdem_tw_protocol_obj(p, type)) != NULL)
        return d;
    if (zdem_tw_snap_type_uuid(snap, type, uuid))
        return zdem_tw_obj_desc_by_uuid(uuid);
    return NULL;
}

const zdem_tw_msg_desc *zdem_tw_protocol_msg(const zdem_tw_protocol *p, int sys, int id,
                                             const uint8_t *uuid)
{
    size_t i;
    if (id == 0) /* DDNet's UUID messages: one table for both protocols */
        return zdem_tw_msg_desc_find(sys, id, uuid);
    for (i = 0; i < p->num_msgs; i++)
        if (p->msgs[i].sys == sys && p->msgs[i].id == id)
            return &p->msgs[i];
    return NULL;
}

static int value_ok(const zdem_tw_field_desc *f, int32_t v)
{
    const zdem_tw_range *r = &zdem_tw_ranges[f->range];
    if (f->check & ZDEM_TW_CHECK_RANGE)
        return v >= r->min && v <= r->max;
    if (f->check & ZDEM_TW_CHECK_FLAGS)
        return ((uint32_t)v & ~(uint32_t)r->max) == 0;
    return 1;
}

int zdem_tw_item_mismatch(const zdem_tw_obj_desc *d, const int32_t *data, uint32_t len,
                          int pre_agreed)
{
    uint32_t k, at = 0;
    if (d->size && !pre_agreed && len != d->size)
        return 1;
    for (k = 0; k < d->num_fields; k++) {
        const zdem_tw_field_desc *f = &d->fields[k];
        if (at + f->ints > len)
            break; /* a short extension item: the rest is not there */
        if (f->kind == ZDEM_TW_FIELD_INT && !value_ok(f, data[at]))
            return 1;
        at += f->ints;
    }
    return 0;
}

int zdem_tw_msg_mismatch(const zdem_tw_msg_desc *d, const uint8_t *body, size_t n)
{
    zdem_tw_unpacker u;
    uint32_t k;
    zdem_tw_unp_init(&u, body, n);
    for (k = 0; k < d->num_fields; k++) {
        const zdem_tw_field_desc *f = &d->fields[k];
        if (f->kind == ZDEM_TW_FIELD_INT) {
            if ((f->check & ZDEM_TW_CHECK_OPTIONAL) && !u.error && u.p >= u.end)
                continue;
            if (!value_ok(f, zdem_tw_unp_int(&u)))
                return 1;
        } else if (f->kind == ZDEM_TW_FIELD_STRING) {
            (void)zdem_tw_unp_str(&u);
        } else {
            (void)zdem_tw_unp_rest(&u);
        }
    }
    return u.error != 0;
}

/* ---- the reader's side: the protocol of a demo and its mismatches ---- */

void zdem_tw_reader_use_protocol(zdem_tw_reader *r)
{
    r->proto = zdem_tw_protocol_select(r->info.net_version, &r->proto_known);
    zdem_tw_snap_init(&r->snaps, r->proto->static_sizes, r->proto->num_static_sizes);
    r->mismatches = 0;
    r->snap_mismatches_seen = 0;
    zdem_error_clear(&r->first_mismatch);
}

static int pre_agreed(const zdem_tw_snapstate *s, int type)
{
    return type >= 0 && (size_t)type < s->num_static_sizes && s->static_sizes[type] != 0;
}

void zdem_tw_reader_check(zdem_tw_reader *r, const zdem_tw_event *ev)
{
    uint32_t found = 0;
    const zdem_tw_protocol *p = r->proto;
    if (!p)
        return;
    if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE) {
        if (p->strict && ev->desc && ev->msg.id != 0 &&
            zdem_tw_msg_mismatch(ev->desc, ev->msg.body, ev->msg.body_len))
            found = 1;
    } else if (ev->snap) {
        /* pre-agreed sizes a full snapshot contradicted (the snapshot
         * layer reads deltas with the sizes it saw instead) */
        found = r->snaps.size_mismatches - r->snap_mismatches_seen;
        r->snap_mismatches_seen = r->snaps.size_mismatches;
        if (p->strict) { /* the items this chunk wrote: work follows the delta */
            const zdem_tw_snap *s = ev->snap;
            const uint16_t *w;
            int all;
            uint32_t n = zdem_tw_snap_written(&r->snaps, &w, &all), k, it = zdem_tw_snap_first(s);
            if (all)
                n = s->num_items;
            for (k = 0; k < n; k++, it = all ? zdem_tw_snap_next(s, it) : it) {
                uint32_t i = all ? it : w[k];
                const zdem_tw_obj_desc *d = zdem_tw_protocol_item_desc(p, s, i);
                if (d && zdem_tw_item_mismatch(d, zdem_tw_snap_data(s, i), s->len[i],
                                               pre_agreed(&r->snaps, zdem_tw_snap_type(s, i))))
                    found++;
            }
        }
    }
    if (found && r->mismatches == 0)
        zdem_fail(&r->first_mismatch, ZDEM_ERR_CORRUPT, ev->chunk.offset,
                  ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE
                      ? "a message" : "a snapshot item");
    r->mismatches += found;
}
