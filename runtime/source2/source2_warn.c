/* Warning kinds of a Source 2 run: names for reports, counting, and the
 * first place each happened. */
#include "source2_demo.h"

static const struct {
    const char *name, *text;
    uint8_t damage;
} kinds[ZDEM_S2_W_COUNT] = {
    {"bad_frames", "frames whose payload did not decode (skipped)", 1},
    {"bad_packets", "packets whose message framing broke (rest skipped)", 1},
    {"bad_messages", "inner messages that did not decode (skipped)", 1},
    {"bad_entity_packets", "entity packets abandoned", 1},
    {"bad_string_tables", "string-table messages abandoned", 1},
    {"frame_limit", "frames larger than the frame buffer (skipped)", 0},
    {"arena_full", "messages skipped: state arena full", 0},
    {"table_limit", "string-table data larger than its buffer (skipped)", 0},
    {"entity_limit", "entity packets past max_entities (skipped)", 0},
    {"field_path_limit", "entity packets past max_field_paths (skipped)", 0},
    {"event_key_limit", "game events with keys past the key limit (dropped)", 0},
    {"pending_limit", "game events before their descriptors not kept", 0},
    {"probe_limit", "keys not kept: no free slot within the probe bound", 0},
    {"work_limit", "items skipped: over the work budget per input byte", 0},
    {"message_limit", "inner messages larger than the inner-message buffer (skipped)", 0},
    {"unknown_types", "fields of a type the schema does not know, read by the generic decoder "
                      "as unsigned varints: right for enums, ids and handles; other fields are "
                      "not affected", 0},
    {"unknown_encoders", "fields with an encoder the schema does not know, read by their type's "
                         "default decoder; other fields are not affected", 0},
    {"unknown_classes", "entities of a class without serializer", 0},
    {"unstored_fields", "field values decoded but not stored", 0},
};

const char *zdem_s2_warn_name(zdem_s2_warn_kind k)
{
    return (unsigned)k < ZDEM_S2_W_COUNT ? kinds[k].name : "unknown";
}

const char *zdem_s2_warn_text(zdem_s2_warn_kind k)
{
    return (unsigned)k < ZDEM_S2_W_COUNT ? kinds[k].text : "unknown";
}

int zdem_s2_warn_is_damage(zdem_s2_warn_kind k)
{
    return (unsigned)k < ZDEM_S2_W_COUNT && kinds[k].damage;
}

void zdem_s2_warn(zdem_s2_warnings *w, zdem_s2_warn_kind k, const zdem_error *where)
{
    if ((unsigned)k >= ZDEM_S2_W_COUNT)
        return;
    if (w->count[k] < 0xFFFFFFFFu)
        w->count[k]++;
    if (w->count[k] == 1u && where)
        w->first[k] = *where;
    if (kinds[k].damage && w->damage.code == ZDEM_OK && where)
        w->damage = *where;
}

void zdem_s2_warn_skipped(zdem_s2_warnings *w, uint64_t offset)
{
    zdem_error e;
    zdem_error_clear(&e);
    zdem_fail(&e, ZDEM_ERR_NO_SPACE, offset, "frame larger than the gather buffer: skipped");
    zdem_s2_warn(w, ZDEM_S2_W_FRAME_LIMIT, &e);
}

zdem_status zdem_s2_warn_result(const zdem_s2_warnings *w, zdem_status st, zdem_error *err)
{
    if (st != ZDEM_OK)
        return st;
    if (w->damage.code != ZDEM_OK) {
        if (err && err->code == ZDEM_OK)
            *err = w->damage;
        return w->damage.code;
    }
    return ZDEM_OK;
}
