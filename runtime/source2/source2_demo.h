/* Source 2 demo container (PBDEMS2): file header, outer command frames,
 * and the inner NET/SVC message stream inside CDemoPacket.data.
 *
 * Zero copy: payloads are views into the caller's file buffer unless they
 * are Snappy-compressed (decompressed into caller scratch) or, for inner
 * messages, not byte-aligned in the bit stream (copied into scratch). */
#ifndef ZDEM_SOURCE2_DEMO_H
#define ZDEM_SOURCE2_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_bits.h"
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_S2_HEADER_SIZE 16u
#define ZDEM_S2_CMD_COMPRESSED 0x40u /* DEM_IsCompressed flag in the command */

/* Outer command ids that the container itself needs. */
enum {
    ZDEM_S2_DEM_STOP = 0,
    ZDEM_S2_DEM_FILEHEADER = 1,
    ZDEM_S2_DEM_FILEINFO = 2,
    ZDEM_S2_DEM_SYNCTICK = 3,
    ZDEM_S2_DEM_SENDTABLES = 4,
    ZDEM_S2_DEM_CLASSINFO = 5,
    ZDEM_S2_DEM_STRINGTABLES = 6,
    ZDEM_S2_DEM_PACKET = 7,
    ZDEM_S2_DEM_SIGNONPACKET = 8,
    ZDEM_S2_DEM_FULLPACKET = 13
};

typedef struct zdem_s2_header {
    uint32_t fileinfo_offset;    /* byte offset of the DEM_FileInfo frame */
    uint32_t spawngroups_offset; /* byte offset of the spawn groups frame */
} zdem_s2_header;

/* Checks the magic and reads both offsets (they are not validated here:
 * zdem_s2_read_fileinfo does that when it follows one). */
zdem_status zdem_s2_read_header(const uint8_t *file, size_t size,
                                zdem_s2_header *hdr, zdem_error *err);

/* One outer frame. */
typedef struct zdem_s2_outer {
    uint32_t index;          /* 0-based frame number */
    uint64_t offset;         /* byte offset of the frame in the file */
    uint32_t cmd;            /* EDemoCommands id, compressed flag removed */
    int compressed;          /* payload is Snappy-compressed */
    int64_t tick;            /* -1 for the pregame tick 0xFFFFFFFF */
    uint64_t payload_offset; /* byte offset of the stored payload */
    const uint8_t *stored;   /* stored (possibly compressed) payload view */
    uint32_t stored_size;
} zdem_s2_outer;

typedef struct zdem_s2_reader {
    const uint8_t *file;
    size_t size;
    size_t pos;
    uint32_t index;
    int stopped; /* DEM_Stop seen */
} zdem_s2_reader;

/* Reads the frame header at pos of buf (size bytes): 1 and *out filled
 * (offsets relative to buf), *next past it; -1 on error. Shared by the
 * sequential reader, the push input and the FileInfo lookup. */
int zdem_s2_read_frame(const uint8_t *buf, size_t size, size_t pos,
                       zdem_s2_outer *out, size_t *next, zdem_error *err);

/* Starts after the 16-byte header (call zdem_s2_read_header first). */
void zdem_s2_reader_init(zdem_s2_reader *r, const uint8_t *file, size_t size);

/* Next outer frame: 1 = *out filled, 0 = clean end of file, -1 = error
 * (err has the byte offset). Frames after DEM_Stop are still returned. */
int zdem_s2_next(zdem_s2_reader *r, zdem_s2_outer *out, zdem_error *err);

/* The frame's payload: a view of the stored bytes, or, when compressed,
 * decompressed into scratch (scratch_cap bytes; ZDEM_ERR_NO_SPACE at the
 * frame's offset, before anything is written, if the Snappy preamble says
 * more). */
zdem_status zdem_s2_payload(const zdem_s2_outer *m, uint8_t *scratch,
                            size_t scratch_cap, const uint8_t **data,
                            size_t *size, zdem_error *err);

/* Reads the DEM_FileInfo frame directly through the header offset, without
 * scanning. An offset out of range or a frame that is not DEM_FileInfo is
 * ZDEM_ERR_CORRUPT. data, size: the CDemoFileInfo protobuf bytes. */
zdem_status zdem_s2_read_fileinfo(const uint8_t *file, size_t size,
                                  const zdem_s2_header *hdr, uint8_t *scratch,
                                  size_t scratch_cap, const uint8_t **data,
                                  size_t *size_out, zdem_error *err);

/* Default size of a decompressed-payload buffer: see README ("Memory"). */
#define ZDEM_S2_FRAME_BUFFER_DEFAULT ((size_t)16 << 20)

/* ---- warnings --------------------------------------------------------------
 * What a run skipped, fell back on or cut short, counted by kind with the
 * place each kind happened first. "Damage" kinds are data that could not be
 * decoded (a run that saw any ends with the first of them as its error);
 * the others are limits of the configuration and fallbacks. */
typedef enum zdem_s2_warn_kind {
    ZDEM_S2_W_BAD_FRAMES = 0,     /* damage: frame payload did not decode */
    ZDEM_S2_W_BAD_PACKETS,        /* damage: inner message framing broken */
    ZDEM_S2_W_BAD_MESSAGES,       /* damage: an inner message did not decode */
    ZDEM_S2_W_BAD_ENTITY_PACKETS, /* damage: PacketEntities abandoned */
    ZDEM_S2_W_BAD_STRING_TABLES,  /* damage: string-table data abandoned */
    ZDEM_S2_W_FRAME_LIMIT,        /* limit: frame larger than its buffer */
    ZDEM_S2_W_ARENA_FULL,         /* limit: state arena exhausted */
    ZDEM_S2_W_TABLE_LIMIT,        /* limit: string-table buffer too small */
    ZDEM_S2_W_ENTITY_LIMIT,       /* limit: entity index >= max_entities */
    ZDEM_S2_W_FIELD_PATH_LIMIT,   /* limit: more paths than max_field_paths */
    ZDEM_S2_W_EVENT_KEY_LIMIT,    /* limit: game event keys dropped */
    ZDEM_S2_W_PENDING_LIMIT,      /* limit: early game events not kept */
    ZDEM_S2_W_PROBE_LIMIT,        /* limit: a hash lookup probed too far */
    ZDEM_S2_W_WORK_LIMIT,         /* limit: over the work budget per input byte */
    ZDEM_S2_W_MESSAGE_LIMIT,      /* limit: inner message larger than its buffer */
    ZDEM_S2_W_UNKNOWN_TYPES,      /* fallback: field type not in the table */
    ZDEM_S2_W_UNKNOWN_ENCODERS,   /* fallback: encoder not known */
    ZDEM_S2_W_UNKNOWN_CLASSES,    /* fallback: entity of an unknown class */
    ZDEM_S2_W_UNSTORED_FIELDS,    /* fallback: value decoded, not stored */
    ZDEM_S2_W_COUNT
} zdem_s2_warn_kind;

typedef struct zdem_s2_warnings {
    uint32_t count[ZDEM_S2_W_COUNT];
    zdem_error first[ZDEM_S2_W_COUNT]; /* where each kind happened first */
    zdem_error damage;                 /* first damage of any kind */
} zdem_s2_warnings;

/* Short name ("bad_frames"), a phrase for people, and whether it is damage. */
const char *zdem_s2_warn_name(zdem_s2_warn_kind k);
const char *zdem_s2_warn_text(zdem_s2_warn_kind k);
int zdem_s2_warn_is_damage(zdem_s2_warn_kind k);
/* Counts one; where (may be NULL) is kept if it is the first of its kind. */
void zdem_s2_warn(zdem_s2_warnings *w, zdem_s2_warn_kind k, const zdem_error *where);
/* A frame of the push input skipped: larger than the gather buffer. */
void zdem_s2_warn_skipped(zdem_s2_warnings *w, uint64_t offset);
/* A run's result: st (how the input ended) when it is an error, else the
 * first damage (copied into err), else ZDEM_OK. */
zdem_status zdem_s2_warn_result(const zdem_s2_warnings *w, zdem_status st, zdem_error *err);

/* ---- work budget per input byte ---------------------------------------------
 * Compact input can ask for far more work than its size: Snappy inside
 * Snappy, a string table created again and again, frames of nothing that
 * are millions of empty inner messages, a class baseline decoded again.
 * A budget grows with the input read (per_byte x (input + slack)); work of
 * each kind is taken from it before it is done, and what would go over is
 * skipped with a work_limit warning while the run goes on. */
typedef enum zdem_s2_work_kind {
    ZDEM_S2_WORK_EXPAND = 0, /* bytes decompressed */
    ZDEM_S2_WORK_ITEMS,      /* inner-message headers and string-table entries read */
    ZDEM_S2_WORK_FIELDS,     /* entity field values decoded (baselines included) */
    ZDEM_S2_WORK_KINDS
} zdem_s2_work_kind;

/* Defaults: far above what the corpus needs (README, Memory). */
#define ZDEM_S2_WORK_EXPAND_DEFAULT 128u
#define ZDEM_S2_WORK_ITEMS_DEFAULT 1u
#define ZDEM_S2_WORK_FIELDS_DEFAULT 2u
#define ZDEM_S2_WORK_SLACK ((uint64_t)16 << 10) /* input counted from the start */

typedef struct zdem_s2_work {
    uint32_t per_byte[ZDEM_S2_WORK_KINDS]; /* 0: the default */
    uint64_t used[ZDEM_S2_WORK_KINDS];
    uint64_t input; /* input read: the end of the current frame */
} zdem_s2_work;

/* Defaults, nothing used. */
void zdem_s2_work_init(zdem_s2_work *w);
/* What is left of kind k (0 when spent). */
uint64_t zdem_s2_work_left(const zdem_s2_work *w, zdem_s2_work_kind k);
/* The budget of kind k for the input so far (work_left = cap - used). */
uint64_t zdem_s2_work_cap(const zdem_s2_work *w, zdem_s2_work_kind k);
/* 1 when n more units of k fit (then they are counted), else 0. */
int zdem_s2_work_take(zdem_s2_work *w, zdem_s2_work_kind k, uint64_t n);

/* ---- inner messages (CDemoPacket.data) ---------------------------------- */

typedef struct zdem_s2_inner {
    uint32_t index;      /* position in the packet */
    uint32_t type;       /* NET/SVC/user message id (ubit_var) */
    uint64_t bit_offset; /* of the frame in the packet data */
    uint64_t data_bit;   /* of the payload in the packet data */
    const uint8_t *data; /* payload bytes (view, or copy in scratch) */
    uint32_t size;
} zdem_s2_inner;

typedef struct zdem_s2_inner_reader {
    zdem_bits br;
    uint8_t *scratch;   /* for payloads that are not byte-aligned */
    size_t scratch_cap;
    size_t scratch_used;
    uint32_t index;
} zdem_s2_inner_reader;

void zdem_s2_inner_init(zdem_s2_inner_reader *ir, const uint8_t *data,
                        size_t size, uint8_t *scratch, size_t scratch_cap);

/* 1 = *out filled, 0 = end, -1 = error (bit offset in err). */
int zdem_s2_inner_next(zdem_s2_inner_reader *ir, zdem_s2_inner *out,
                       zdem_error *err);

/* Priority classes used to deliver a packet's messages in the order the
 * entity layer needs: string tables first, entities last. */
typedef enum zdem_s2_priority {
    ZDEM_S2_PRIO_STRINGTABLES = 0,
    ZDEM_S2_PRIO_NORMAL = 1,
    ZDEM_S2_PRIO_ENTITIES = 2
} zdem_s2_priority;

zdem_s2_priority zdem_s2_inner_priority(uint32_t type);

typedef zdem_status (*zdem_s2_inner_fn)(void *user, const zdem_s2_inner *m);

/* Calls fn for every inner message of a packet. ordered == 1 delivers in
 * priority order (three passes over the framing; payloads are not re-read);
 * ordered == 2 only puts string tables first (two passes: the entities
 * keep their place among the other messages, as the wire has them).
 * When the framing breaks, every message before the break is still
 * delivered (in each pass), then the framing error is returned (bit offset
 * in the packet data). A handler's error stops the walk at once. */
zdem_status zdem_s2_for_each_inner(const uint8_t *data, size_t size,
                                   int ordered, uint8_t *scratch,
                                   size_t scratch_cap, zdem_s2_inner_fn fn,
                                   void *user, zdem_error *err);

/* The same for only the types want(type) accepts (want NULL: all); the
 * others are stepped over, never copied, so scratch need only hold the
 * wanted ones. */
typedef int (*zdem_s2_inner_want)(uint32_t type);
zdem_status zdem_s2_for_each_inner_of(const uint8_t *data, size_t size,
                                      int ordered, zdem_s2_inner_want want,
                                      uint8_t *scratch, size_t scratch_cap,
                                      zdem_s2_inner_fn fn, void *user,
                                      zdem_error *err);

/* The same, each header read (in every pass) taken from w's items budget
 * (w NULL: none): when it runs out the rest of the packet is not read
 * and ZDEM_ERR_LIMIT is returned, everything before it delivered. A
 * wanted message that is not byte-aligned and larger than scratch is
 * stepped over and handed to fn with data NULL (the handler reports the
 * limit); the messages after it go on. */
zdem_status zdem_s2_for_each_inner_work(const uint8_t *data, size_t size,
                                        int ordered, zdem_s2_inner_want want,
                                        uint8_t *scratch, size_t scratch_cap,
                                        zdem_s2_inner_fn fn, void *user,
                                        zdem_s2_work *w, zdem_error *err);
#ifdef __cplusplus
}
#endif

#endif
