/* Internals of the Source 2 state layer (shared by source2_state*.c,
 * source2_stringtables.c, source2_serializers.c, source2_entities.c,
 * source2_events.c). Not a public API. */
#ifndef ZDEM_SOURCE2_STATE_INT_H
#define ZDEM_SOURCE2_STATE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "source2_state.h"
#include "source2_push.h"
#include "source2_fields.h"
#include "source2_pb.h"
#include "source2_ids.h"
#include "zdem_hash.h"

/* Events mode (source2_events_mode.c): commands whose frames it never
 * reads, a bit per command. */
uint32_t zdem_s2_events_unread_cmds(void);

/* One outer frame into the state, as the .dem push input hands it over
 * (source2_broadcast.c frames broadcast records with it). */
zdem_status zdem_s2_state_push_frame(void *ctx, const zdem_s2_outer *m, zdem_error *err);

#define S2_STRBUF 4096
#define S2_POOL_CLASSES 28 /* block sizes 2^4 .. 2^31 bytes */
#define S2_PENDING 64      /* game events kept until their descriptors come */
/* How far from its home slot a hash table keeps a key. A key with no free
 * slot that close makes its table grow (up to 16 slots a key); past that
 * it is refused and reported (probe_limit). So no lookup reads more than
 * S2_PROBE_LIMIT + 1 slots, whatever the seed and whatever keys a file
 * sends: the seed only makes refusals as unlikely as hash collisions for
 * keys not crafted against it. */
#define S2_PROBE_LIMIT 48u

/* What zdem_s2_plan_read resolved a field path to: its decoder (NULL: the
 * path names no field; &zdem_s2_fd_late: resolved with the values) and
 * its hash (s2_fphash). One array, as the reader writes them together. */
typedef struct s2_planned {
    const zdem_s2_fdec *fd;
    uint64_t h;
} s2_planned;

/* A kept plan (the plan cache, source2_plancache.c). */
#define S2_PC_WAYS 4u
#define S2_PC_MAX_PATHS 32u
#define S2_PC_MAX_BITS 256u
#define S2_PC_CHUNK 56u /* bits a compare word holds (a load at any bit) */
#define S2_PC_CHUNKS ((S2_PC_MAX_BITS + S2_PC_CHUNK - 1u) / S2_PC_CHUNK)
typedef struct s2_pc_entry {
    int32_t ser;  /* -2: free */
    uint16_t n;   /* paths */
    uint16_t bits; /* the update's path bits, FieldPathEncodeFinish included */
    uint64_t w[S2_PC_CHUNKS]; /* those bits, S2_PC_CHUNK a word, 0 past them */
    zdem_s2_fp fps[S2_PC_MAX_PATHS];
    s2_planned plan[S2_PC_MAX_PATHS];
} s2_pc_entry;

/* The hash of a field path (the value tables' key): a multiply-add over
 * its components with odd 64-bit multipliers drawn from the seed, plus a
 * term for its depth, then one mixing round (zdem_s2_fphash_fin); a table
 * takes the top bits. The sum is linear, so the entity reader keeps it as
 * a path changes: one multiply-add and the round a value. */
typedef struct s2_fphash {
    uint64_t k[ZDEM_S2_FP_MAX_DEPTH];     /* per component */
    uint64_t d[ZDEM_S2_FP_MAX_DEPTH + 1]; /* per depth */
} s2_fphash;

void zdem_s2_fphash_init(s2_fphash *h, uint64_t seed);

/* The sum's bits mixed before a table takes its top bits: the sum alone
 * is linear in the components, and a table of linear probes then clusters
 * for some seeds on a real demo's arrays (values refused under
 * probe_limit); one xorshift-multiply round spreads it. A multiply carries
 * every bit upwards, and only the top 24 bits are ever used, so the round
 * needs no shift after it. */
static inline uint64_t zdem_s2_fphash_fin(uint64_t x)
{
    x ^= x >> 29;
    return x * 0xBF58476D1CE4E5B9ull;
}

/* The hash of the path packed in (hi, lo) (zdem_s2_fp_pack's key). */
static inline uint64_t zdem_s2_fphash_key(const s2_fphash *h, uint64_t hi, uint64_t lo)
{
    unsigned depth = (unsigned)(lo >> 56) & 7u, i;
    uint64_t r = h->d[depth];
    /* components 0..3 in hi, 4..6 in lo from bit 8 (zdem_s2_fp_pack) */
    for (i = 0; i < depth; i++)
        r += ((i < 4u ? hi >> (16u * i) : lo >> (8u + 16u * (i - 4u))) & 0xFFFFu) * h->k[i];
    return zdem_s2_fphash_fin(r);
}

/* Field models: how a field's sub-paths are laid out. */
enum {
    S2_M_SIMPLE = 0,
    S2_M_FIXED_ARRAY, /* path+1: element index */
    S2_M_VAR_ARRAY,   /* at depth: count; path+1: element */
    S2_M_FIXED_TABLE, /* at depth: present bit; path+1: nested field */
    S2_M_VAR_TABLE    /* at depth: count; path+1: element; path+2: nested field */
};

typedef struct s2_field {
    uint32_t name;     /* arena offset of the name bytes */
    uint32_t type;     /* arena offset of the type string */
    uint16_t name_len, type_len;
    int32_t ser;       /* nested serializer or -1 */
    union {
        struct {
            int32_t ser_sym, ser_ver; /* while loading */
        } ld;
        /* once loaded (have_sendtables): the decoder of a path that ends
         * at this field (NULL: none), so that the entity reader takes it
         * with one load instead of a switch per value */
        const struct zdem_s2_fdec *end;
    } u;
    uint32_t poly;     /* arena offset of int32 serializer indexes, 0 none */
    uint32_t npoly;    /* polymorphic pointer: types selectable by index */
    uint32_t count;    /* fixed array bound, 0 = unknown */
    uint8_t model;
    uint8_t unknown;   /* type fell back to the generic decoder */
    zdem_s2_fdec fd;   /* value, element or count decoder */
} s2_field;

typedef struct s2_ser {
    uint32_t name;      /* arena offset */
    uint16_t name_len;
    int32_t name_sym, version;
    uint32_t fields;    /* arena offset of uint32 field indexes */
    uint32_t nfields;
    uint32_t by_name;   /* arena offset of uint32 positions sorted by name */
} s2_ser;

typedef struct s2_class {
    int32_t ser;        /* serializer, -1 unknown */
    uint32_t name;      /* arena offset */
    uint16_t name_len;
    uint8_t bl_stale;   /* the entry that names the class changed: bl is
                           kept while its bytes are the same */
    uint32_t bl_entry;  /* instancebaseline entry index + 1, 0 = none */
    uint32_t bl;        /* decoded baseline (s2_baseline), 0 = not yet */
} s2_class;

/* A string-table entry, in its table's hash by index. */
typedef struct s2_st_entry {
    uint32_t used;         /* 0: empty slot */
    uint32_t index;
    uint32_t key, key_len; /* arena offset, 0 = no key */
    uint32_t val, val_len; /* arena offset, 0 = no value */
} s2_st_entry;

enum { S2_TK_OTHER = 0, S2_TK_BASELINE, S2_TK_USERINFO, S2_TK_COMBATLOG };

typedef struct s2_table {
    uint32_t name, name_len; /* arena offset of the name (NUL-terminated) */
    uint32_t n;              /* entries present */
    uint32_t max_index;      /* highest index + 1 */
    uint32_t slots;          /* pool offset of s2_st_entry[1 << log2], 0 none */
    uint8_t log2;
    uint8_t kind;            /* S2_TK_* */
    uint8_t user_data_fixed, varint_bitcounts;
    int32_t user_data_size_bits;
    int32_t flags;
} s2_table;

/* An entity value keyed by its packed field path (see zdem_s2_fp_pack):
 * lo == 0 marks an empty slot; lo's low 3 bits are flags. */
typedef struct s2_slot {
    uint64_t hi, lo;
    uint64_t a, b;
} s2_slot;

#define S2_SLOT_STRING 1u /* a holds pool offset | length << 32 */
#define S2_TRANSFORM_BYTES 24u /* CTransform values, kept like strings */
#define S2_SLOT_FLAGS 7u

/* An open-addressing table of slots (entity values, baselines). */
typedef struct s2_vtab {
    uint32_t tab;   /* pool offset of s2_slot[1 << log2], 0 none */
    uint32_t count;
    uint8_t log2;
    uint8_t strings; /* a slot may hold S2_SLOT_STRING: vt_free must look */
} s2_vtab;

/* A class baseline decoded once, shared by every entity created from it
 * until the bytes of its instancebaseline entry change (then the entities
 * that still use it keep it alive). It holds a reference on the shared
 * blob it was decoded from: the class keeps it while the entry that names
 * the class holds that same blob. */
typedef struct s2_baseline {
    uint32_t refs;
    uint32_t src, src_len; /* the value blob (zdem_s2_blob_ref) */
    s2_vtab v;
} s2_baseline;

typedef struct s2_ent {
    int32_t cls;      /* -1 free */
    uint32_t serial;
    s2_vtab v;        /* values set on this entity */
    uint32_t bl;      /* shared baseline underneath, 0 none */
    uint32_t live_pos;
    uint8_t active;
    uint8_t stale;    /* live before a full snapshot that has not named it yet */
} s2_ent;

typedef struct s2_evkey {
    uint32_t name;
    uint16_t name_len;
    int16_t type;
} s2_evkey;

typedef struct s2_evdesc {
    int32_t id;
    uint32_t name;
    uint16_t name_len;
    uint32_t keys; /* arena offset of s2_evkey[nkeys] */
    uint32_t nkeys;
} s2_evdesc;

struct zdem_s2_state {
    zdem_s2_config cfg;
    uint8_t *base;
    size_t cap, used, peak;
    uint32_t free_head[S2_POOL_CLASSES];
    uint64_t seed; /* hash seed */
    s2_fphash fph;  /* field-path hash from the seed */

    /* frames: one forward pass, push or whole file */
    zdem_s2_push push;
    uint8_t *frame_buf, *inner_buf, *gather_buf;
    size_t frame_cap, inner_cap, gather_cap;
    int64_t stop_tick; /* >= 0: game frames past it are not decoded */
    uint64_t seek_from; /* game frames before this offset are only framed */
    int done;          /* stop_tick passed */
    int raw_packets;   /* a broadcast: packet payloads are the inner stream */
    uint64_t cur_frame; /* file offset of the frame being decoded */
    uint64_t cur_base;  /* payload position of the message being decoded */
    zdem_s2_warnings warn;
    zdem_s2_work work; /* budget per input byte (zdem_s2_config.max_*_per_byte) */

    /* serializers and classes */
    s2_field *fields;
    uint32_t nfields;
    s2_ser *sers;
    uint32_t nsers;
    uint32_t nser_names; /* distinct serializer names */
    uint32_t *ser_by_name; /* serializer positions sorted by name, version */
    /* or, when it loaded (ser_by_name then NULL): an open-addressing table
     * of 2^ser_hash_log2 serializer positions, the best of each distinct
     * name (highest version, then first), 0xFFFFFFFF empty */
    uint32_t *ser_hash;
    uint8_t ser_hash_log2;
    s2_class *classes;
    uint32_t nclasses; /* class ids 0..nclasses-1 */
    uint32_t nclass_names; /* classes with a name */
    uint32_t class_bits;
    int have_sendtables;
    int32_t max_classes; /* from ServerInfo, 0 unknown */
    float tick_interval;

    /* string tables: an array in creation order (the table id) and a hash
     * of their names */
    s2_table *tables;
    uint32_t ntables, tables_cap;
    uint32_t tab_hash;  /* pool offset of uint32 table ids, 0xFFFFFFFF empty */
    uint8_t tab_hash_log2;
    int baseline_table, userinfo_table, combatlog_table;
    uint32_t userinfo_changes; /* counts writes to userinfo (player lookups cache it) */

    /* entities */
    s2_ent *ents;
    uint32_t max_ents;
    uint32_t live;
    uint32_t *live_list; /* indexes of the live entities, any order */
    zdem_s2_fp *fps;
    s2_planned *plan;         /* the decoder and hash of fps[i] (zdem_s2_plan_read) */
    uint32_t max_fps;
    s2_pc_entry *pc;          /* the plan cache: pc_sets sets of S2_PC_WAYS, NULL none */
    uint8_t *pc_victim;       /* per set: the way the next kept plan replaces */
    uint32_t pc_sets;         /* a power of two */
    uint8_t *tmp;
    uint32_t tmp_size;

    /* game events */
    s2_evdesc *evd;
    uint32_t nevd, evd_cap;
    uint32_t *evd_by_id; /* descriptor positions sorted by id */
    int evd_direct;      /* no id repeats: evd[id] may answer for id */

    /* game events that arrive before their descriptor list */
    struct { uint32_t off, len; int32_t tick; } pending[S2_PENDING];
    uint32_t npending;

    int32_t tick;        /* demo tick of the current frame */
    int32_t server_tick; /* last net_Tick */
    zdem_s2_stats stats;
    zdem_s2_usage usage;
    uint8_t strbuf[S2_STRBUF];
    zdem_s2_event ev;
    int ev_keys_dropped; /* the event being decoded had too many keys */
};

/* ---- arena (source2_state.c) -------------------------------------------- */
/* Permanent allocation (never freed); 0 when the arena is full. */
uint32_t zdem_s2_alloc(zdem_s2_state *s, size_t n);
/* Where the next zdem_s2_alloc starts and how many bytes it could take, so an
 * array of unknown length can be filled in place in one pass; zdem_s2_alloc of
 * the final size then returns that same place. */
uint8_t *zdem_s2_alloc_peek(zdem_s2_state *s, size_t *avail);
/* Pool blocks of size 2^k >= n, reusable after zdem_s2_pool_free. */
uint32_t zdem_s2_pool_alloc(zdem_s2_state *s, size_t n);
void zdem_s2_pool_free(zdem_s2_state *s, uint32_t off, size_t n);
static inline void *s2_ptr(const zdem_s2_state *s, uint32_t off)
{
    return off ? (void *)(s->base + off) : (void *)0;
}

/* ---- warnings (source2_state.c) ------------------------------------------
 * Every warning carries where it happened: the current frame and the
 * payload position of the message being decoded (s->cur_base), plus e's
 * offset inside that message when e is given. */
void zdem_s2_state_warn(zdem_s2_state *s, zdem_s2_warn_kind k, zdem_error *e);
void zdem_s2_warn_msg(zdem_s2_state *s, zdem_s2_warn_kind k, const char *msg);

/* ---- work budget (source2_state.c) ----------------------------------------
 * 1 when n more units of kind k fit the budget for the input read so far
 * (they are counted); else 0 after a work_limit warning whose message
 * (static) names the limit and what is skipped. */
int zdem_s2_spend(zdem_s2_state *s, zdem_s2_work_kind k, uint64_t n, const char *what);

/* ---- modules -------------------------------------------------------------- */
/* `user` of the generated decoders' callbacks: they have no error
 * argument, so the state and where to report travel together. */
typedef struct s2_pbctx {
    zdem_s2_state *s;
    zdem_error *err;
    const uint8_t *msg; /* the buffer being decoded, for positions */
} s2_pbctx;

/* CDemoStringTables callbacks (user: s2_pbctx); also what CDemoFullPacket's
 * embedded tables go through. */
extern const zdem_pb_CDemoStringTables_cb zdem_s2_st_demo_tables_cb;

zdem_status zdem_s2_st_create(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_st_update(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_st_demo_tables(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
void zdem_s2_st_clear_all(zdem_s2_state *s);
/* Entry of table t by index, or NULL. */
const s2_st_entry *zdem_s2_st_find(const zdem_s2_state *s, const s2_table *t, uint32_t index);
/* The class id an instancebaseline entry's key names, or -1. */
int32_t zdem_s2_st_baseline_class(const zdem_s2_state *s, const s2_st_entry *e);
/* Baseline entries point their classes at themselves (after class info). */
void zdem_s2_st_map_baselines(zdem_s2_state *s);
/* instancebaseline values are shared blobs with a reference count. */
void zdem_s2_blob_ref(zdem_s2_state *s, uint32_t off, uint32_t len);
void zdem_s2_blob_unref(zdem_s2_state *s, uint32_t off, uint32_t len);
/* Entry e (of the instancebaseline table) holds the same bytes as blob:
 * it takes blob instead of its own copy. */
void zdem_s2_st_share_value(zdem_s2_state *s, const s2_st_entry *e, uint32_t blob);

zdem_status zdem_s2_ser_load(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_classinfo(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
/* Position of the field called name (len bytes) in serializer ser, or -1. */
int32_t zdem_s2_ser_field(const zdem_s2_state *s, int32_t ser, const char *name, size_t len);
/* Decoder for a field path in serializer ser, or NULL when the path does
 * not name a field; polymorphic pointers are followed through entity e's
 * stored values. */
const zdem_s2_fdec *zdem_s2_resolve_ent(const zdem_s2_state *s, int32_t ser,
                                   const zdem_s2_fp *fp, const s2_ent *e);
/* Decoders the serializers give paths that are not a field's own: array
 * and table counts, presence bits, polymorphic pointers (their type). */
extern const zdem_s2_fdec zdem_s2_fd_bool, zdem_s2_fd_count, zdem_s2_fd_poly;
/* zdem_s2_plan_read's decoder for a path under a polymorphic pointer: it
 * is resolved (zdem_s2_resolve_ent) when its value is due. */
extern const zdem_s2_fdec zdem_s2_fd_late;
/* Reads an update's field paths from br (as zdem_s2_fp_read_all does, the
 * same checks and errors) into s->fps[0..*n), and for each the decoder
 * serializer ser gives it into s->plan (NULL: the path names no field;
 * &zdem_s2_fd_late: resolved later) (source2_fieldplan.c). */
zdem_status zdem_s2_plan_read(const zdem_s2_state *s, int32_t ser, zdem_bits *br,
                              uint32_t *n, zdem_error *err);
/* The plan cache (source2_plancache.c): an update's field paths are its
 * path bits and its class's serializer and nothing else, so an update
 * whose path bits repeat an earlier one's (an entity moving again, all
 * players' positions) reuses that plan instead of reading the paths
 * again. Set-associative, keyed by the serializer and the first bits;
 * a hit compares every bit. Updates of at most S2_PC_MAX_PATHS paths in
 * at most S2_PC_MAX_BITS bits are kept, only ones that read without a
 * fault. */
/* Arena bytes for a cache of `entries` (rounded down to whole sets of a
 * power-of-two count; 0: none). */
size_t zdem_s2_pc_size(uint32_t entries);
/* Sets the cache up in the arena at init, empty (none for fewer entries
 * than one set holds): 0 on a full arena. */
int zdem_s2_pc_init(zdem_s2_state *s, uint32_t entries);
/* The entry whose path bits (for serializer ser) are the ones at br's
 * position, NULL when none is; nothing is read. */
const s2_pc_entry *zdem_s2_pc_find(const zdem_s2_state *s, int32_t ser, const zdem_bits *br);
/* Keeps the plan zdem_s2_plan_read has just made (s->fps, s->plan, n
 * paths) from the path bits at [start, br->pos) when it fits. */
void zdem_s2_pc_keep(zdem_s2_state *s, int32_t ser, const zdem_bits *br, size_t start, uint32_t n);

/* Stored raw value of entity e at the first `depth` components of fp;
 * 1 = found. */
int zdem_s2_ent_raw(const zdem_s2_state *s, const s2_ent *e, const zdem_s2_fp *fp,
               unsigned depth, uint64_t *out);

/* A value table by itself (keys: packed field paths, lo != 0 with its low
 * 3 bits clear), for tests: put 1, refused -1 (probe_limit), full arena 0;
 * get 1 when found. */
int zdem_s2_vt_put(zdem_s2_state *s, s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t a);
int zdem_s2_vt_get(const zdem_s2_state *s, const s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t *a);
void zdem_s2_vt_clear(zdem_s2_state *s, s2_vtab *v);

zdem_status zdem_s2_packet_entities(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
/* The value of a class's baseline entry changed (or went away). */
void zdem_s2_baseline_changed(zdem_s2_state *s, uint32_t class_id);

zdem_status zdem_s2_event_list(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_game_event(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_convars(zdem_s2_state *s, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_simple_event(zdem_s2_state *s, const char *name, zdem_error *err);
zdem_status zdem_s2_chat(zdem_s2_state *s, uint32_t type, const uint8_t *msg, size_t n, zdem_error *err);
zdem_status zdem_s2_combat_log(zdem_s2_state *s, uint32_t type, const uint8_t *msg, size_t n, zdem_error *err);

/* Packs a field path into a 128-bit key: 16 bits a component, then the
 * depth (every path the format can express fits); lo is never 0 and its
 * low byte is 0 (see source2_entities.c). */
void zdem_s2_fp_pack(const zdem_s2_fp *fp, uint64_t *hi, uint64_t *lo);
void zdem_s2_fp_unpack(uint64_t hi, uint64_t lo, zdem_s2_fp *fp);

#endif
