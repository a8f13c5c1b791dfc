/* Source 2 clips (`zdem cut`): a PBDEMS2 demo of ticks [start, end] of
 * another, which the game and other readers load as they load any demo.
 *
 * The clip is:
 *  - the 16-byte header, its DEM_FileInfo and spawn-groups offsets fixed
 *    up for the clip;
 *  - the frames before the first game frame (DEM_Packet or
 *    DEM_FullPacket): the file header and the signon (DEM_SignonPacket,
 *    DEM_SendTables, DEM_ClassInfo, DEM_StringTables: the string tables
 *    as of the start, DEM_SyncTick, ...);
 *  - from the nearest DEM_FullPacket at or before start (which restates
 *    every entity and string table), or from the demo's first game frame
 *    when there is none after it, every frame up to the last before the
 *    first game frame past end (frames between the signon and that full
 *    packet that are not game frames, such as animation headers, are
 *    kept: they carry no game state that the full packet does not);
 *  - DEM_Stop, the original's DEM_SpawnGroups frame if it follows its
 *    DEM_Stop, and a new DEM_FileInfo: playback ticks, frames and time of
 *    the clip written by the generated encoder (generated/
 *    source2_encode.c), the original's other fields (game info) copied.
 * Frames are copied byte for byte (Snappy payloads stay compressed), but
 * for any DEM_FileInfo before the end (the header must point at the
 * first one a reader meets: the clip's own); the
 * clip therefore starts at the full packet's tick, at or before start,
 * and its entities at start are the original's.
 *
 * The clip's part of the original is read through the caller's state (a
 * run as zdem_s2_state_seek makes one: the signon, then from that full
 * packet to end), so that damage in it is found: the clip then ends
 * before the frame of the first damage (a frame or message the reader
 * skipped, or the file cut short: a valid demo of the part before) and
 * that fault is returned; damage before the full packet writes nothing. */
#ifndef ZDEM_SOURCE2_WRITE_H
#define ZDEM_SOURCE2_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_write.h"
#include "source2_state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_s2_cut_info {
    int started;              /* game frames in the clip */
    int from_full_packet;     /* it starts at a DEM_FullPacket after the demo's start */
    int64_t first_tick;       /* ticks of its first and last game frames */
    int64_t last_tick;
    uint64_t start_offset;    /* the original's offset of its first game frame */
    uint32_t frames;          /* frames written */
    int32_t playback_ticks;   /* its DEM_FileInfo */
    int32_t playback_frames;
    float playback_time;
    uint64_t bytes;
} zdem_s2_cut_info;

/* Writes the clip of ticks [start_tick, end_tick] of file[0, size)
 * through write. s: a state freshly set up by zdem_s2_state_init (its
 * config and arena decide what the check can read, as for any run).
 * Returns the fault the clip stopped at (after writing what came before
 * it), or a write failure. info may be NULL. */
zdem_status zdem_s2_writer_cut(zdem_s2_state *s, const uint8_t *file, size_t size,
                               int64_t start_tick, int64_t end_tick, zdem_write_fn write,
                               void *user, zdem_s2_cut_info *info, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
