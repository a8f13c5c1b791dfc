/* zdem's public API in one include: `#include <zdem/zdem.h>`.
 * Every name it declares begins with zdem_ / ZDEM_.
 *
 * Shared core: zdem_status and zdem_error (zdem_error.h), the Snappy
 * decompressor, zdem_version().
 * One style for all three formats:
 *   - whole file in memory: zdem_<fmt>_..._file / _run / _open;
 *   - push input in pieces of any size: zdem_<fmt>_..._init / _feed / _end;
 *   - caller memory: a _size() function (or sizeof a struct) says how much,
 *     the caller hands it in, nothing is allocated;
 *   - callbacks take a `void *user`;
 *   - every failure fills one zdem_error (status, static message, offset).
 * Source 2: zdem_s2_parse / zdem_s2_parser_* (frames and messages),
 * zdem_s2_state_* (string tables, entities, events), zdem_s2_broadcast_*
 * (HTTP broadcast fragments into a state), zdem_s2_writer_cut (clips).
 * Quake III / Quake Live: zdem_q3_parser_*, zdem_q3_push_*, zdem_q3_writer_*
 * (clips: zdem_q3_cut).
 * Teeworlds / DDNet: zdem_tw_reader_*, zdem_tw_push_*, zdem_tw_writer_cut.
 * Clips write through a callback or into a buffer (zdem_write.h). */
#ifndef ZDEM_H
#define ZDEM_H

/* Each header wraps its own declarations in extern "C" (after its system
 * includes), so C++ can include this one or any single header. */
#include "zdem_version.h"
#include "zdem_error.h"
#include "zdem_snappy.h"
#include "zdem_table.h"
#include "zdem_write.h"

#include "source2_parse.h"
#include "source2_state.h"
#include "source2_broadcast.h"
#include "source2_players.h"
#include "source2_ticks.h"
#include "source2_rows.h"
#include "source2_write.h"

#include "quake3.h"
#include "quake3_push.h"
#include "quake3_write.h"
#include "quake3_rows.h"

#include "teeworlds_reader.h"
#include "teeworlds_push.h"
#include "teeworlds_write.h"
#include "teeworlds_rows.h"

#endif
