/* Quake III / Quake Live clips (`zdem cut`): a demo of the server times
 * [start, end] of another, which the game and other readers load as they
 * load any demo.
 *
 * The clip is:
 *  - a gamestate: the configstrings as they stand when the first
 *    snapshot of the range arrives, the baselines (their bits as the
 *    original's gamestate sent them), the client number and checksum
 *    feed; numbered one before the first message;
 *  - that message, with its snapshot encoded whole (no delta: entities
 *    from their baselines, the playerstate from zero) and its server
 *    commands as they were;
 *  - every later message up to the last before the first snapshot past
 *    `end`, copied as it is, except that a snapshot whose delta source
 *    lies before the clip is encoded whole (the rest of its message
 *    copied bit for bit);
 *  - the -1/-1 end marker.
 * Messages and server commands keep their numbers, so the deltas inside
 * the clip stay valid; the server command sequence of the gamestate is
 * the one before the first message, whose commands are therefore
 * replayed as the original delivered them. The encoders are generated
 * from the same netfield tables as the decoders (generated/
 * quake3_encode.c; decode(encode(x)) == x).
 *
 * Memory is the caller's (zdem_q3_writer_size(): a parser at its default
 * limits and two message buffers); output goes to a callback or into a
 * buffer (zdem_write.h). A message that fails to parse ends the clip
 * there: the clip written so far is closed with the end marker, a valid
 * demo of the part before the damage, and the fault is returned. */
#ifndef ZDEM_QUAKE3_WRITE_H
#define ZDEM_QUAKE3_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_write.h"
#include "quake3.h"

#ifdef __cplusplus
extern "C" {
#endif

struct zdem_q3_writer;
typedef struct zdem_q3_writer zdem_q3_writer;

typedef struct zdem_q3_cut_info {
    int started;              /* a snapshot of the range was found */
    int32_t first_server_time; /* the clip's first and last snapshots */
    int32_t last_server_time;
    uint32_t messages;        /* messages written, the gamestate included */
    uint32_t snapshots;       /* valid snapshots in the clip */
    uint32_t whole;           /* snapshots encoded whole (the first included) */
    uint64_t bytes;           /* bytes written, the end marker included */
} zdem_q3_cut_info;

/* Bytes of caller memory for a writer (any alignment). */
size_t zdem_q3_writer_size(void);

/* A writer of the snapshots whose server time lies in [start_ms, end_ms]
 * (INT32_MIN / INT32_MAX: from the first / to the last). protocol as
 * zdem_q3_parser_init (0: from the serverinfo; 3 and 48 must be given).
 * NULL when mem is too small or the protocol unsupported (err says). */
zdem_q3_writer *zdem_q3_writer_init(void *mem, size_t size, int protocol,
                                    int32_t start_ms, int32_t end_ms,
                                    zdem_write_fn write, void *user, zdem_error *err);

/* One message of the original, in file order. err->offset counts bits in
 * the message on a parse failure (as zdem_q3_parse_message); the clip is
 * then complete up to the message before (call _finish). */
zdem_status zdem_q3_writer_message(zdem_q3_writer *w, const zdem_q3_frame *f,
                                   zdem_error *err);
/* 1 once a snapshot past end_ms was read: later messages are not needed. */
int zdem_q3_writer_done(const zdem_q3_writer *w);
/* The end marker. Call it after the last message, after a failure too. */
zdem_status zdem_q3_writer_finish(zdem_q3_writer *w, zdem_error *err);

const zdem_q3_cut_info *zdem_q3_writer_info(const zdem_q3_writer *w);
/* The writer's parser (its state as the original is read). */
const zdem_q3_parser *zdem_q3_writer_parser(const zdem_q3_writer *w);

/* The whole walk over a file in memory: framing, every message up to the
 * range's end, the end marker. Returns the first fault (a framing error
 * or a damaged message; err->offset a file offset) after closing the
 * clip of what came before it. info may be NULL. */
zdem_status zdem_q3_cut(void *mem, size_t size, int protocol, const uint8_t *data,
                        size_t n, int32_t start_ms, int32_t end_ms, zdem_write_fn write,
                        void *user, zdem_q3_cut_info *info, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
