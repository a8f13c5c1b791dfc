/* libFuzzer target: game-event descriptors by id (a sorted index with a
 * direct-slot shortcut, runtime/source2/source2_events.c) fed adversarial
 * id sets: up to 96 descriptors whose ids come from the input (repeated,
 * reversed, sparse, negative, equal to other descriptors' positions) in a
 * CMsgSource1LegacyGameEventList, then game events by id. Each event must
 * be named after the first descriptor with its id, or be unnamed
 * ("unknown_event") when none has it.
 * Input: u8 descriptor count; per descriptor a u8 id form (0: small id
 * from the next byte, 1: position-like id, 2: large id (u32), 3: negative);
 * then per event a u8 pick (< 0x80: a descriptor's id, else an id of the
 * same forms). */
#define FK_MAX_INPUT 2048u
#include "fuzz_source2_keys.h"

#define MAXD 96u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int32_t ids[MAXD];
static unsigned nids;
static const char *got_name;
static uint32_t got_len;
static unsigned delivered;

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    (void)user;
    (void)s;
    got_name = ev->name;
    got_len = ev->name_len;
    delivered++;
    return ZDEM_OK;
}

static int32_t read_id(fk_in *in)
{
    switch (fk_u8(in) % 4u) {
    case 0: return (int32_t)(fk_u8(in) % 8u);
    case 1: return (int32_t)(fk_u8(in) % MAXD);
    case 2: return (int32_t)(fk_u32(in) & 0x7FFFFFFFu);
    default: return -(int32_t)(1u + fk_u8(in));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fk_in in;
    fk_pb pb, d;
    zdem_s2_state *s;
    zdem_error err;
    unsigned i, j;
    fk_in_init(&in, data, size);
    if (!(s = fk_s2_state(1, on_event, NULL)))
        return 0;
    nids = 1u + fk_u8(&in) % MAXD;
    pb.n = 0;
    for (i = 0; i < nids; i++) {
        char name[16];
        ids[i] = read_id(&in);
        snprintf(name, sizeof name, "e%u", i);
        d.n = 0;
        fk_pb_int(&d, 1, ids[i]);
        fk_pb_bytes(&d, 2, name, strlen(name));
        fk_pb_bytes(&pb, 1, d.buf, d.n);
    }
    zdem_error_clear(&err);
    FK_CHECK(zdem_s2_event_list(s, pb.buf, pb.n, &err) == ZDEM_OK, "event list", nids, err.code);
    while (fk_more(&in)) {
        unsigned pick = fk_u8(&in);
        int32_t id = pick < 0x80u ? ids[pick % nids] : read_id(&in);
        char want[16];
        int first = -1;
        for (j = 0; j < nids && first < 0; j++)
            if (ids[j] == id)
                first = (int)j;
        if (first >= 0)
            snprintf(want, sizeof want, "e%d", first);
        else
            snprintf(want, sizeof want, "unknown_event");
        pb.n = 0;
        fk_pb_int(&pb, 2, id);
        delivered = 0;
        zdem_error_clear(&err);
        FK_CHECK(zdem_s2_game_event(s, pb.buf, pb.n, &err) == ZDEM_OK, "game event", (uint32_t)id,
                 err.code);
        FK_CHECK(delivered == 1, "event delivered", delivered, (uint32_t)id);
        FK_CHECK(got_len == strlen(want) && memcmp(got_name, want, got_len) == 0,
                 "event named after the first descriptor with its id", (uint32_t)id,
                 (unsigned)first);
    }
    return 0;
}
