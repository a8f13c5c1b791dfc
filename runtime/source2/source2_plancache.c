/* The plan cache: field-path plans (zdem_s2_plan_read's paths, decoders
 * and hashes) kept by the update bits they were read from.
 *
 * A plan is a function of the path bits and the class's serializer only
 * (the serializers load once per demo), and an update often repeats an
 * earlier one's paths bit for bit: the same entity moving again, every
 * player's position in a tick. Such an update costs a compare of its path
 * bits instead of a walk through the field-path operations. The lookup is
 * bounded whatever the input: S2_PC_WAYS entries of one set, each compared
 * in at most S2_PC_CHUNKS words; a crafted stream that fills one set only
 * makes it miss. */
#include "source2_state_int.h"

#define PC_FREE (-2)
#define PC_CHUNK_MASK ((UINT64_C(1) << S2_PC_CHUNK) - 1u)

/* Sets for a cache of `entries` plans: a power of two (0: none). */
static uint32_t pc_sets_for(uint32_t entries)
{
    uint32_t sets = 1;
    if (entries < S2_PC_WAYS)
        return 0;
    while (sets * 2u <= entries / S2_PC_WAYS && sets < (1u << 16))
        sets *= 2u;
    return sets;
}

size_t zdem_s2_pc_size(uint32_t entries)
{
    uint32_t sets = pc_sets_for(entries);
    return sets ? (size_t)sets * (S2_PC_WAYS * sizeof(s2_pc_entry) + 1u) + 16u : 0u;
}

static void pc_clear(zdem_s2_state *s)
{
    uint32_t i;
    for (i = 0; s->pc && i < s->pc_sets * S2_PC_WAYS; i++)
        s->pc[i].ser = PC_FREE;
    for (i = 0; s->pc && i < s->pc_sets; i++)
        s->pc_victim[i] = 0;
}

int zdem_s2_pc_init(zdem_s2_state *s, uint32_t entries)
{
    uint32_t sets = pc_sets_for(entries), off, voff;
    s->pc = 0;
    s->pc_sets = 0;
    if (!sets)
        return 1;
    off = zdem_s2_alloc(s, (size_t)sets * S2_PC_WAYS * sizeof(s2_pc_entry));
    voff = off ? zdem_s2_alloc(s, sets) : 0u;
    if (!voff)
        return 0;
    s->pc = (s2_pc_entry *)(void *)(s->base + off);
    s->pc_victim = s->base + voff;
    s->pc_sets = sets;
    pc_clear(s);
    return 1;
}

/* S2_PC_CHUNK bits from bit pos of d, where 8 bytes are there to load. */
static inline uint64_t pc_chunk(const uint8_t *d, size_t pos)
{
    return (zdem_load_le64(d + (pos >> 3)) >> (pos & 7u)) & PC_CHUNK_MASK;
}

/* The same within 8 bytes of the end (len bytes): bits past it read as
 * 0. Out of line: only the last update or two of a message comes here. */
static uint64_t pc_chunk_near(const uint8_t *d, size_t len, size_t pos)
{
    size_t at = pos >> 3;
    uint64_t w = 0;
    unsigned i;
    if (at + 8u <= len)
        return pc_chunk(d, pos);
    for (i = 0; at + i < len; i++)
        w |= (uint64_t)d[at + i] << (8u * i);
    return (w >> (pos & 7u)) & PC_CHUNK_MASK;
}

static inline uint64_t pc_mask(unsigned bits)
{
    return bits >= S2_PC_CHUNK ? PC_CHUNK_MASK : (UINT64_C(1) << bits) - 1u;
}

/* The set of serializer ser and the update's first 8 bits (every kept
 * update has at least 8), mixed with the state's seed. */
static inline uint32_t pc_set(const zdem_s2_state *s, int32_t ser, uint64_t first)
{
    uint64_t x = ((uint64_t)(uint32_t)ser << 8 | (first & 0xFFu)) ^ s->seed;
    x *= UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(x >> 40) & (s->pc_sets - 1u);
}

/* Whether e's path bits past its first chunk are the ones at pos of d
 * (len bytes). near: within 64 bits of the end, loads stop at it (a
 * constant where this is inlined). */
static inline int pc_rest_same(const s2_pc_entry *e, const uint8_t *d, size_t len, size_t pos,
                               const int near)
{
    unsigned c;
    for (c = 1; c * S2_PC_CHUNK < e->bits; c++) {
        size_t at = pos + c * S2_PC_CHUNK;
        if (((near ? pc_chunk_near(d, len, at) : pc_chunk(d, at)) &
             pc_mask(e->bits - c * S2_PC_CHUNK)) != e->w[c])
            return 0;
    }
    return 1;
}

const s2_pc_entry *zdem_s2_pc_find(const zdem_s2_state *s, int32_t ser, const zdem_bits *br)
{
    const size_t pos = br->pos;
    const uint8_t *d = br->data;
    const s2_pc_entry *e;
    uint64_t w0;
    size_t left, room;
    unsigned k;
    if (!s->pc || pos >= br->end)
        return 0;
    left = br->end - pos; /* an entry with more bits cannot be here */
    /* an entry of at most room bits has 8 bytes to load at each chunk;
     * one that ends in the last 64 bits (the last update of a message)
     * is compared without loading past the end */
    room = left >= 64u ? left - 64u : 0u;
    w0 = left >= 64u ? pc_chunk(d, pos) : pc_chunk_near(d, br->len, pos);
    e = s->pc + (size_t)pc_set(s, ser, w0) * S2_PC_WAYS;
    for (k = 0; k < S2_PC_WAYS; k++, e++) {
        if (e->ser != ser || (w0 & pc_mask(e->bits)) != e->w[0])
            continue;
        if (e->bits <= room ? pc_rest_same(e, d, br->len, pos, 0)
                            : e->bits <= left && pc_rest_same(e, d, br->len, pos, 1))
            return e;
    }
    return 0;
}

void zdem_s2_pc_keep(zdem_s2_state *s, int32_t ser, const zdem_bits *br, size_t start, uint32_t n)
{
    size_t bits = br->pos - start;
    uint32_t set;
    s2_pc_entry *e;
    unsigned c;
    int near = br->end - br->pos < 64u; /* else every chunk has 8 bytes to load */
    /* at least 8 bits: the set's key */
    if (!s->pc || n == 0 || n > S2_PC_MAX_PATHS || bits < 8u || bits > S2_PC_MAX_BITS ||
        br->overflow)
        return;
    set = pc_set(s, ser, near ? pc_chunk_near(br->data, br->len, start) : pc_chunk(br->data, start));
    e = s->pc + (size_t)set * S2_PC_WAYS + s->pc_victim[set];
    s->pc_victim[set] = (uint8_t)((s->pc_victim[set] + 1u) % S2_PC_WAYS);
    e->ser = ser;
    e->n = (uint16_t)n;
    e->bits = (uint16_t)bits;
    for (c = 0; c < S2_PC_CHUNKS; c++) {
        size_t at = start + c * S2_PC_CHUNK;
        e->w[c] = c * S2_PC_CHUNK >= bits ? 0u
                  : (near ? pc_chunk_near(br->data, br->len, at) : pc_chunk(br->data, at)) &
                        pc_mask((unsigned)(bits - c * S2_PC_CHUNK));
    }
    memcpy(e->fps, s->fps, n * sizeof *e->fps);
    memcpy(e->plan, s->plan, n * sizeof *e->plan);
}
