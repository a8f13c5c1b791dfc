/* zdem: command-line front end. Maps each file read-only (standard input,
 * "-", is read in pieces through the push APIs), detects the format by its
 * magic (Quake III demos have none: by extension or by a plausible first
 * block), and hands over to the format's CLI module. Several files: each
 * runs in a child whose output is marked with the file (cli_multi.c). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_live.h"
#include "zdem_version.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_main[] =
    "usage: zdem COMMAND [OPTIONS] FILE...\n"
    "       zdem --version\n"
    "\n"
    "Reads game demo files: Source 2 (.dem: Dota 2, CS2, Deadlock),\n"
    "Quake III / Quake Live (.dm3, .dm_48, .dm_66 .. .dm_91), Teeworlds/DDNet\n"
    "(.demo: Teeworlds 0.6 and 0.7, DDNet; the header's net version picks the\n"
    "protocol).\n"
    "The format is detected from the file's contents. FILE '-' is standard\n"
    "input (read as it arrives). With several files, each file's output is\n"
    "marked: JSON lines get a \"file\" member, CSV a first column \"file\",\n"
    "text a \"==> FILE <==\" line; the exit status is the worst of them.\n"
    "Quake III names its protocol in the file name (.dm_68); on standard input\n"
    "give it with --protocol N where the serverinfo does not (Quake III 1.32).\n"
    "Live input: for info, events, entities, ticks and props, FILE may be a\n"
    "Source 2 HTTP broadcast (CS2 GOTV+, Deadlock): an http:// URL (BASE as in\n"
    "BASE/sync; needs libcurl) or a directory laid out like one (sync.json,\n"
    "N/start, N/full, N/delta); --follow reads a file still being written, of\n"
    "any format, until the format's end. Output is flushed as each fragment or\n"
    "piece is decoded.\n"
    "\n"
    "commands:\n"
    "  info      header and summary facts (--json for one JSON object)\n"
    "  dump      one line per message (--json: one JSON object per line)\n"
    "  events    game events: kills, chat, prints, ... (one JSON object per line)\n"
    "  entities  Source 2 entities and their properties at a tick\n"
    "  ticks     one row per tick and player/entity with chosen properties\n"
    "            (JSON lines or CSV)\n"
    "  props     every property name 'ticks' accepts for the file\n"
    "  map       Teeworlds: write the embedded map (-o OUT.map)\n"
    "  cut       write a clip of a demo, a demo itself (-o OUT)\n"
    "\n"
    "options ('zdem COMMAND --help' says which a command takes):\n"
    "  --json             JSON: one object (info), one per line (dump, events,\n"
    "                     entities)\n"
    "  --format jsonl|csv events, ticks, props: JSON lines (default) or CSV\n"
    "  --type NAME        dump: only the messages named (or numbered) NAME\n"
    "  --name A,B,...     events: only the events with these names\n"
    "  --tick N           entities: the state at tick N\n"
    "  --class NAME       entities, ticks, props: only entities of class NAME\n"
    "  --props P1,P2,...  ticks: the properties, one column each\n"
    "  --ticks A,B,...    ticks: only these ticks\n"
    "  --every K          ticks: only ticks divisible by K\n"
    "  --small            microcontroller limits: Teeworlds and Quake III info,\n"
    "                     dump, events; Source 2 events (the events mode)\n"
    "  --memory MIB       Source 2: the state arena (default 256)\n"
    "  --max-frame MIB    Source 2: the largest decompressed frame (default 16)\n"
    "  --max-work N       Source 2: N x the work budget per input byte\n"
    "  --max-output BYTES dump: stop after BYTES of output (default: per input byte)\n"
    "  --max-rows N       ticks: stop after N rows (default: per input byte)\n"
    "  --protocol N       Quake III on standard input: the protocol number\n"
    "  --start A, --end B cut: from tick A to tick B (Quake III: server time, ms)\n"
    "  --start-seconds S, --end-seconds S\n"
    "                     cut: seconds from the start of the demo\n"
    "  --around I --before S --after S\n"
    "                     cut: S seconds before and after event I of 'zdem events'\n"
    "  -o OUT             map, cut: the file to write\n"
    "  --follow           a file still being written: wait for more bytes until\n"
    "                     the format's end (or --idle-timeout)\n"
    "  --idle-timeout S   live input: stop after S seconds without new data\n"
    "                     (default 60)\n"
    "  --poll MS          live input: wait MS ms before looking again (files 100;\n"
    "                     URLs a quarter of the server's fragment interval)\n"
    "  --max-fragment MIB broadcasts: the largest fragment read (default 64)\n"
    "  -h, --help         this help, or a command's\n"
    "  --version          the version\n"
    "\n"
    "An unknown property, class, field, event name or message type is a usage\n"
    "error that names it and the closest valid names.\n"
    "exit status: 0 ok, 1 usage error, 2 bad, truncated or unreadable input\n"
    "(everything decoded before the damage is still printed), 3 zdem itself\n"
    "failed (a worker process killed)\n";

#define MEMORY_HELP                                                              \
    "Source 2 memory (fixed for the run; see README, Memory):\n"                  \
    "  --memory MIB     state arena, buffers included (default 256)\n"            \
    "  --max-frame MIB  largest decompressed frame; larger ones are skipped\n"    \
    "                   and reported (default 16)\n"                               \
    "  --max-work N     N x the work budget per input byte: 128 bytes\n"          \
    "                   decompressed, 1 inner message or string-table entry,\n"  \
    "                   2 entity field values; work over it is skipped and\n"    \
    "                   reported as work_limit (default 1)\n"                     \
    "  --small          Source 2 events: the events mode (no entities) in 1 MiB,\n" \
    "                   fed in 4 KiB pieces as a device would\n"                 \
    "On a damaged or truncated file, everything before the damage is printed,\n" \
    "then \"zdem: FILE: offset N: what\" on stderr, and the exit status is 2.\n"

#define SMALL_HELP                                                                \
    "--small reads with the limits for a microcontroller (README,\n"              \
    "Microcontrollers): Teeworlds ZDEM_TW_LIMITS_SMALL, Quake III\n"             \
    "ZDEM_Q3_LIMITS_SMALL; what does not fit them\n"                               \
    "is reported as a warning that names the limit.\n"

#define LIVE_HELP                                                                 \
    "Live input: FILE may be a Source 2 broadcast URL (http://.../BASE: BASE/sync,\n" \
    "then BASE/N/start, N/full, N/delta as the server publishes them; 404s are\n"  \
    "asked again, a dropped transfer resumed) or a directory laid out like one;\n"  \
    "--follow reads a file still being written (any format):\n"                     \
    "  --follow           wait for more bytes until the format's end (Source 2\n"   \
    "                     DEM_Stop, Quake III's end marker, Teeworlds' header\n"    \
    "                     length, written when the recorder stops)\n"              \
    "  --idle-timeout S   stop after S seconds without new data (default 60)\n"    \
    "  --poll MS          wait MS ms before looking again (files: 100, or at once\n" \
    "                     with inotify; URLs: a quarter of the server's fragment\n" \
    "                     interval, else 500)\n"                                      \
    "  --max-fragment MIB a broadcast fragment larger than this stops the run\n"    \
    "                     (default 64)\n"

#define PROTOCOL_HELP                                                             \
    "--protocol N reads a Quake III demo as protocol N (default: the file\n"       \
    "name's .dm_N, else its serverinfo; standard input has no name).\n"

static const struct {
    const char *name;
    const char *help;
} commands[] = {
    {"info",
     "usage: zdem info [--json] [--small] [MEMORY OPTIONS] [LIVE OPTIONS] FILE...\n"
     "Prints the header and summary facts of a demo: format, map, players,\n"
     "tick/time span, message counts, warnings (what was skipped or fell\n"
     "back, by kind) and the error if the file is damaged. --json prints one\n"
     "JSON object (with \"warnings\" and \"error\" members when there are any).\n"
     SMALL_HELP
     PROTOCOL_HELP
     MEMORY_HELP
     LIVE_HELP},
    {"dump",
     "usage: zdem dump [--json] [--type NAME] [--small] [--max-output BYTES]\n"
     "                 [--max-frame MIB] [--max-work N] FILE...\n"
     "Prints one line per message: index, byte offset, tick, id, name, size.\n"
     "--type NAME keeps only messages whose name (or numeric id) is NAME\n"
     "(Source 2: DEM_Packet, svc_ServerInfo, ...; Quake III: the line types\n"
     "message, gamestate, snapshot, command, warning, skipped; Teeworlds: a\n"
     "chunk kind or a message name). An unknown NAME is an error.\n"
     "--json prints one JSON object per line.\n"
     "--max-output BYTES stops after about BYTES of output (default: 8 per\n"
     "input byte for Source 2, 64 for Quake III and Teeworlds, + 64 KiB),\n"
     "with a warning; the exit status stays 0.\n"
     "Source 2: --max-frame and --max-work as for info.\n"
     SMALL_HELP
     PROTOCOL_HELP},
    {"events",
     "usage: zdem events [--json] [--small] [--name A,B,...] [--format jsonl|csv]\n"
     "                   [MEMORY OPTIONS] [LIVE OPTIONS] FILE...\n"
     "Prints game events, one JSON object per line with at least \"type\" and\n"
     "the time (tick or server_time): kills/obituaries, chat, prints, ...\n"
     "--name A,B keeps the events with those names: Source 2 game event names\n"
     "(player_death), chat, combat-log types (DEATH) or a type (game_event,\n"
     "chat, combat_log); Quake III and Teeworlds the \"type\" (obituary, chat,\n"
     "kill, ...; Teeworlds 0.7 adds team, join, leave). A name the demo cannot\n"
     "have is an error (Source 2: checked once its game event list is read).\n"
     "--format csv: one CSV row per event, columns time (the tick; Quake III:\n"
     "server_time in ms), type, name, and the whole event as JSON.\n"
     SMALL_HELP
     PROTOCOL_HELP
     MEMORY_HELP
     LIVE_HELP},
    {"ticks",
     "usage: zdem ticks FILE... --props P1,P2,... [--class NAME]\n"
     "                  [--ticks A,B,...|--every K] [--format jsonl|csv]\n"
     "                  [--max-rows N] [MEMORY OPTIONS] [LIVE OPTIONS]\n"
     "Prints one row per (tick, entity) with the properties P1,P2,...; rows are\n"
     "printed as the demo is read (columns: tick, entity, then the properties;\n"
     "a missing value is null in JSON, empty in CSV).\n"
     "  --ticks A,B,...  only these ticks      --every K  only ticks divisible by K\n"
     "  --format csv     CSV with a header (default: one JSON object per line)\n"
     "  --max-rows N     stop after N rows, with a warning (default: 3 per input\n"
     "                   byte for Source 2, 16 for Quake III and Teeworlds, +\n"
     "                   65536); the exit status stays 0\n"
     "Source 2: without --class, one row per player (controller and pawn; entity\n"
     "is the pawn). Properties are dotted names as 'zdem entities' prints them\n"
     "(m_iHealth, CBodyComponent.m_cellX, CCSPlayerController.m_iszPlayerName)\n"
     "or demoparser2's names: X Y Z pitch yaw health team_num name steamid\n"
     "balance active_weapon armor_value life_state is_alive score ping.\n"
     "NAME.N is component N of a vector. --class NAME: rows of that class.\n"
     "Quake III (time = server_time): --class player (default: the recorded\n"
     "player's playerstate) or --class entity (every entity in the snapshot);\n"
     "properties are netfield names (origin.0, viewangles.1, stats.0, weapon..).\n"
     "Teeworlds: --class character (default) or --class player; properties are\n"
     "net-object fields (x, y, vel_x, health, armor, weapon, score, team, ...).\n"
     "'zdem props FILE' lists every name; an unknown property or class is an\n"
     "error naming the closest ones (Source 2: checked when the demo's classes\n"
     "are read, at its start, before any row).\n"
     PROTOCOL_HELP
     MEMORY_HELP
     LIVE_HELP},
    {"props",
     "usage: zdem props [--class NAME] [--format jsonl|csv] [MEMORY OPTIONS] [LIVE OPTIONS]\n"
     "                  FILE...\n"
     "Lists every name 'zdem ticks' accepts for the file, one JSON object (or\n"
     "CSV row) per name: class, name, type, and for demoparser2's names\n"
     "\"reads\", the property they stand for.\n"
     "Source 2: without --class, demoparser2's names and the properties of the\n"
     "player controller and pawn classes (what plain 'ticks' reads); --class\n"
     "NAME those of one class (for 'ticks --class NAME'), --class '*' every\n"
     "class. Only the start of the demo is read (up to its class list).\n"
     "Names are dotted as 'zdem entities' prints them; a vector is also listed\n"
     "per component (NAME.0 ..), a fixed array per element, a variable-length\n"
     "one as its count NAME and its element NAME.0 (any index reads), a pointer\n"
     "or component as its presence NAME and its fields NAME.field.\n"
     "Quake III: class player (playerstate) and entity fields; Teeworlds: the\n"
     "snapshot objects' fields (class: the object, as --class takes it).\n"
     MEMORY_HELP
     LIVE_HELP},
    {"entities",
     "usage: zdem entities [--json] [--tick N] [--class NAME] [MEMORY OPTIONS]\n"
     "                     [LIVE OPTIONS] FILE...\n"
     "Source 2: prints the live entities and their properties at tick N >= 0\n"
     "(default: the end of the demo), optionally only those of class NAME (a\n"
     "class the demo does not have is an error). On a live server's broadcast\n"
     "it stops once the broadcast passes tick N.\n"
     MEMORY_HELP
     LIVE_HELP},
    {"map",
     "usage: zdem map FILE -o OUT.map   (one FILE)\n"
     "Teeworlds/DDNet: writes the map embedded in the demo to OUT.map.\n"},
    {"cut",
     "usage: zdem cut FILE --start A --end B -o OUT\n"
     "       zdem cut FILE --start-seconds S --end-seconds S -o OUT\n"
     "       zdem cut FILE --around I --before S --after S -o OUT\n"
     "Writes OUT, a demo of the part of FILE from A to B (both included): ticks\n"
     "for Source 2 and Teeworlds, server time in ms for Quake III. Either end\n"
     "may be left out (the start, the end of the demo). --start-seconds and\n"
     "--end-seconds count seconds from the demo's start. --around I cuts S\n"
     "seconds before and after the event on line I (counted from 0) of\n"
     "'zdem events FILE' (a kill, a chat line). --json prints what was written\n"
     "as one JSON object. FILE must be a file (not standard input).\n"
     "Source 2: the signon, then every frame from the nearest DEM_FullPacket\n"
     "at or before A (or the first game frame) to B, copied, DEM_Stop and a\n"
     "new DEM_FileInfo; the clip may start before A.\n"
     "On a damaged or truncated FILE, OUT is a valid demo of the part before\n"
     "the damage, \"zdem: FILE: offset N: what\" goes to stderr, and the exit\n"
     "status is 2.\n"
     PROTOCOL_HELP},
};

enum fmt { FMT_UNKNOWN, FMT_SOURCE2, FMT_QUAKE3, FMT_TEEWORLDS };

static int has_q3_extension(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (strncmp(dot, ".dm_", 4) == 0 || strcmp(dot, ".dm3") == 0);
}

static int has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    return dot && strcmp(dot, ext) == 0;
}

/* A file cut inside its magic is still that format (and truncated): its
 * bytes begin the magic; an empty one goes by its extension. */
static int starts_magic(const uint8_t *d, size_t n, const char *magic, size_t m,
                        const char *path, const char *ext)
{
    if (n >= m)
        return memcmp(d, magic, m) == 0;
    return n ? memcmp(d, magic, n) == 0 : has_extension(path, ext);
}

static enum fmt detect(const uint8_t *d, size_t n, const char *path)
{
    if (starts_magic(d, n, "PBDEMS2\0", 8, path, ".dem"))
        return FMT_SOURCE2;
    if (starts_magic(d, n, "TWDEMO\0", 7, path, ".demo"))
        return FMT_TEEWORLDS;
    if (has_q3_extension(path))
        return FMT_QUAKE3;
    if (n >= 8) { /* Q3 block: int32 sequence, int32 length in (0, 16384] */
        int32_t len = (int32_t)((uint32_t)d[4] | ((uint32_t)d[5] << 8) |
                                ((uint32_t)d[6] << 16) | ((uint32_t)d[7] << 24));
        if (len > 0 && len <= 16384)
            return FMT_QUAKE3;
    }
    return FMT_UNKNOWN;
}

static int command_help(const char *cmd)
{
    size_t i;
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, cmd) == 0) {
            fputs(commands[i].help, stdout);
            return ZDEM_EXIT_OK;
        }
    return -1;
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zdem: %s%s%s\n%s", msg, arg ? ": " : "", arg ? arg : "", usage_main);
    return ZDEM_EXIT_USAGE;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The --props, --name, --ticks lists and the FILE list, freed at exit
 * (every return from main). */
static const char **props_list, **names_list, **paths;
static int32_t *ticks_list;

static void free_lists(void)
{
    free(props_list);
    free(names_list);
    free(ticks_list);
    free(paths);
}

/* "A,B,,C" -> {"A","B","C"} in place (the list lives until exit). */
static int split_names(const char ***list, char *val, const char *opt, const char *const **out,
                       unsigned *nout)
{
    size_t n = 1, k = 0;
    char *p;
    const char **names;
    for (p = val; *p; p++)
        n += *p == ',';
    names = malloc(sizeof(char *) * n);
    free(*list); /* a repeated option: the last one counts */
    *list = names;
    if (!names)
        return usage_error("out of memory", NULL);
    for (p = val;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        if (*p)
            names[k++] = p;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (!k)
        return usage_error(strcmp(opt, "--props") == 0 ? "--props needs property names"
                                                       : "--name needs event names", val);
    *out = names;
    *nout = (unsigned)k;
    return 0;
}

/* --props, --name, --ticks, --every, --format. The lists live until exit. */
static int list_option(zdem_cli_args *a, const char *opt, char *val)
{
    size_t n = 1, i, k = 0;
    char *p, *end;
    if (strcmp(opt, "--format") == 0) {
        if (strcmp(val, "jsonl") != 0 && strcmp(val, "json") != 0 && strcmp(val, "csv") != 0)
            return usage_error("--format is jsonl or csv", val);
        a->format = val;
        return 0;
    }
    if (strcmp(opt, "--every") == 0) {
        unsigned long v = strtoul(val, &end, 10);
        if (*val < '0' || *val > '9' || *end != 0 || v == 0 || v > 0x7FFFFFFFul)
            return usage_error("--every needs a tick count >= 1", val);
        a->every = v;
        return 0;
    }
    if (strcmp(opt, "--props") == 0)
        return split_names(&props_list, val, opt, &a->props, &a->nprops);
    if (strcmp(opt, "--name") == 0)
        return split_names(&names_list, val, opt, &a->names, &a->nnames);
    for (p = val; *p; p++)
        n += *p == ',';
    {
        int32_t *ticks = malloc(sizeof(int32_t) * n);
        free(ticks_list);
        ticks_list = ticks;
        if (!ticks)
            return usage_error("out of memory", NULL);
        for (p = val, i = 0; i < n; i++) {
            long long v = strtoll(p, &end, 10);
            if (end == p || (*end != ',' && *end != 0) || v < 0 || v > 0x7FFFFFFF)
                return usage_error("--ticks needs ticks >= 0, comma-separated", val);
            ticks[k++] = (int32_t)v;
            p = *end ? end + 1 : end;
        }
        qsort(ticks, k, sizeof ticks[0], cmp_i32);
        for (i = 1, n = k, k = k ? 1 : 0; i < n; i++) /* no repeats */
            if (ticks[i] != ticks[k - 1])
                ticks[k++] = ticks[i];
        a->ticks = ticks;
        a->nticks = (unsigned)k;
        if (a->every)
            return usage_error("--ticks and --every exclude each other", NULL);
    }
    return 0;
}

/* The format's command. */
static int dispatch(const zdem_cli_args *a, const zdem_cli_file *f, enum fmt fmt)
{
    int csv_events = strcmp(a->command, "events") == 0 && a->format && strcmp(a->format, "csv") == 0;
    int props = strcmp(a->command, "props") == 0;
    zdem_cli_bound_init(a, f, fmt == FMT_SOURCE2);
    if (strcmp(a->command, "cut") == 0 && fmt != FMT_UNKNOWN)
        return zdem_cli_cut(a, f, fmt == FMT_SOURCE2 ? "source2" : fmt == FMT_QUAKE3 ? "quake3" : "teeworlds",
                            fmt == FMT_SOURCE2 ? zdem_cli_source2 : fmt == FMT_QUAKE3 ? zdem_cli_quake3
                                                                                    : zdem_cli_teeworlds);
    switch (fmt) {
    case FMT_SOURCE2:
        if (props)
            return zdem_cli_source2_props(a, f);
        return csv_events ? zdem_cli_events_csv(zdem_cli_source2, a, f) : zdem_cli_source2(a, f);
    case FMT_QUAKE3:
        if (a->small && strcmp(a->command, "ticks") == 0) {
            /* never read quietly with other limits than asked */
            fprintf(stderr, "zdem: --small: Quake III ticks has no small limits\n");
            return ZDEM_EXIT_USAGE;
        }
        if (props)
            return zdem_cli_quake3_props(a, f);
        return csv_events ? zdem_cli_events_csv(zdem_cli_quake3, a, f) : zdem_cli_quake3(a, f);
    case FMT_TEEWORLDS:
        if (a->small && strcmp(a->command, "ticks") == 0) {
            fprintf(stderr, "zdem: --small: Teeworlds ticks has no small limits\n");
            return ZDEM_EXIT_USAGE;
        }
        if (props)
            return zdem_cli_teeworlds_props(a, f);
        return csv_events ? zdem_cli_events_csv(zdem_cli_teeworlds, a, f) : zdem_cli_teeworlds(a, f);
    default:
        if (strcmp(a->command, "info") == 0 && a->json) /* the error, as JSON too */
            fputs("{\"format\":null,\"warnings\":{},\"error\":{\"offset\":0,\"message\":"
                  "\"unknown format\"}}\n", stdout);
        fprintf(stderr, "zdem: %s: offset 0: unknown format (no Source 2 or "
                        "Teeworlds magic, not a Quake III demo)\n", f->path);
        return ZDEM_EXIT_BAD_INPUT;
    }
}

/* A live source's command (tools/cli_live.c), its format from its head. */
static int dispatch_head(const zdem_cli_args *a, const zdem_cli_file *f, const uint8_t *head,
                         size_t n)
{
    return dispatch(a, f, detect(head, n, f->path));
}

/* Standard input: its first bytes decide the format; the command reads
 * the rest in pieces (zdem_cli_read). */
static int run_stdin(const zdem_cli_args *a)
{
    zdem_cli_stream in;
    zdem_cli_file f;
    int rc;
    memset(&in, 0, sizeof in);
    in.fd = 0;
    while (in.head_len < 8) {
        ssize_t r = read(0, in.head + in.head_len, 8 - in.head_len);
        if (r > 0) {
            in.head_len += (size_t)r;
            in.got += (unsigned long long)r;
        } else if (r == 0 || errno != EINTR) {
            if (r < 0)
                in.error = errno;
            break;
        }
    }
    f.path = "-";
    f.data = NULL;
    f.size = 0;
    f.in = &in;
    f.live = NULL;
    if (in.error)
        return zdem_cli_read_error(&f);
    rc = dispatch(a, &f, detect(in.head, in.head_len, "-"));
    fflush(stdout);
    return rc;
}

static int run_file(const zdem_cli_args *a, const char *path)
{
    zdem_cli_file f;
    struct stat st;
    int fd, rc;
    void *map = NULL;
    if (strcmp(path, "-") == 0)
        return run_stdin(a);
    if (zdem_cli_live_wanted(a, path)) /* a broadcast, or --follow */
        return zdem_cli_live_run(a, path, dispatch_head);
    f.path = path;
    f.in = NULL;
    f.live = NULL;
    /* O_NONBLOCK: opening a FIFO without a writer must not wait; it is
     * refused below as not a regular file. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "zdem: %s: offset 0: cannot open: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return ZDEM_EXIT_BAD_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        fprintf(stderr, "zdem: %s: offset 0: not a regular file (a pipe or a device: "
                        "give it as - on standard input)\n", path);
        return ZDEM_EXIT_BAD_INPUT;
    }
    f.size = (size_t)st.st_size;
    f.data = (const uint8_t *)"";
    if (f.size > 0) {
        /* The whole file is read front to back: map it populated (one
         * call instead of a page fault per few pages) where the system
         * offers it, and say the reading is sequential. */
#ifdef MAP_POPULATE
        map = mmap(NULL, f.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
#else
        map = mmap(NULL, f.size, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
        if (map == MAP_FAILED) {
            close(fd);
            fprintf(stderr, "zdem: %s: offset 0: cannot map file: %s\n", path, strerror(errno));
            return ZDEM_EXIT_BAD_INPUT;
        }
        f.data = map;
#ifdef POSIX_MADV_SEQUENTIAL
        (void)posix_madvise(map, f.size, POSIX_MADV_SEQUENTIAL);
#endif
    }
    close(fd);
    rc = dispatch(a, &f, detect(f.data, f.size, path));
    fflush(stdout);
    if (map)
        munmap(map, f.size);
    return rc;
}

int main(int argc, char **argv)
{
    zdem_cli_args a;
    int i, rc, npaths = 0, stdin_seen = 0;

    memset(&a, 0, sizeof a);
    atexit(free_lists);
    if (argc < 2)
        return usage_error("missing command", NULL);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && command_help(argv[2]) == 0)
            return ZDEM_EXIT_OK;
        fputs(usage_main, stdout);
        return ZDEM_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("zdem %s\n", zdem_version());
        return ZDEM_EXIT_OK;
    }
    a.command = argv[1];
    {
        size_t k, known = 0;
        for (k = 0; k < sizeof commands / sizeof commands[0]; k++)
            if (strcmp(commands[k].name, a.command) == 0)
                known = 1;
        if (!known)
            return usage_error("unknown command", a.command);
    }
    paths = malloc(sizeof(char *) * (size_t)argc);
    if (!paths)
        return usage_error("out of memory", NULL);
    for (i = 2; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0)
            return command_help(a.command);
        else if (strcmp(s, "--json") == 0)
            a.json = 1;
        else if (strcmp(s, "--small") == 0)
            a.small = 1;
        else if (strcmp(s, "--follow") == 0)
            a.follow = 1;
        else if (strcmp(s, "--idle-timeout") == 0 || strcmp(s, "--poll") == 0 ||
                 strcmp(s, "--max-fragment") == 0) {
            char *end;
            unsigned long v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtoul(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end != 0 || v == 0 || v > 86400000ul ||
                (s[2] == 'm' && v > 65536))
                return usage_error(s[2] == 'i' ? "--idle-timeout needs seconds (1..86400000)"
                                   : s[2] == 'p' ? "--poll needs milliseconds (1..86400000)"
                                                 : "--max-fragment needs a size in MiB (1..65536)",
                                   argv[i]);
            if (s[2] == 'i')
                a.idle_s = v;
            else if (s[2] == 'p')
                a.poll_ms = v;
            else
                a.fragment_mib = v;
        }
        else if (strcmp(s, "--props") == 0 || strcmp(s, "--ticks") == 0 ||
                 strcmp(s, "--every") == 0 || strcmp(s, "--format") == 0 ||
                 strcmp(s, "--name") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            if ((rc = list_option(&a, s, argv[++i])) != 0)
                return rc;
        } else if (strcmp(s, "--protocol") == 0) {
            char *end;
            long v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtol(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end != 0 || v < 1 || v > 1000)
                return usage_error("--protocol needs a Quake III protocol number (68, 91, ...)", argv[i]);
            a.protocol = (int)v;
        } else if (strcmp(s, "--type") == 0 || strcmp(s, "--class") == 0 ||
                 strcmp(s, "--tick") == 0 || strcmp(s, "-o") == 0 ||
                 strcmp(s, "--memory") == 0 || strcmp(s, "--max-frame") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            if (strcmp(s, "--type") == 0)
                a.type = argv[++i];
            else if (strcmp(s, "--class") == 0)
                a.class_name = argv[++i];
            else if (strcmp(s, "-o") == 0)
                a.out = argv[++i];
            else if (strcmp(s, "--tick") == 0) {
                char *end;
                a.tick = strtoll(argv[++i], &end, 10);
                if (*argv[i] == 0 || *end != 0)
                    return usage_error("--tick needs an integer", argv[i]);
                if (a.tick < 0)
                    return usage_error("--tick needs a tick >= 0", argv[i]);
                a.has_tick = 1;
            } else {
                char *end;
                unsigned long v = strtoul(argv[++i], &end, 10);
                if (*argv[i] < '0' || *argv[i] > '9' || *end != 0 || v == 0 || v > 65536)
                    return usage_error("needs a size in MiB (1..65536)", argv[i]);
                if (s[2] == 'm' && s[3] == 'e')
                    a.memory_mib = v;
                else
                    a.frame_mib = v;
            }
        } else if (strcmp(s, "--start") == 0 || strcmp(s, "--end") == 0 ||
                   strcmp(s, "--around") == 0) {
            char *end;
            long long v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtoll(argv[++i], &end, 10);
            if (*argv[i] == 0 || *end != 0 || v < -0x80000000LL || v > 0x7FFFFFFFLL ||
                (s[2] == 'a' && v < 0))
                return usage_error(s[2] == 'a' ? "--around needs an event index >= 0"
                                               : "needs a tick (Quake III: server time in ms)", argv[i]);
            if (s[2] == 's') {
                a.start = v;
                a.has_start = 1;
            } else if (s[2] == 'e') {
                a.end = v;
                a.has_end = 1;
            } else {
                a.around = v;
                a.has_around = 1;
            }
        } else if (strcmp(s, "--start-seconds") == 0 || strcmp(s, "--end-seconds") == 0 ||
                   strcmp(s, "--before") == 0 || strcmp(s, "--after") == 0) {
            char *end;
            double v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtod(argv[++i], &end);
            if (*argv[i] == 0 || *end != 0 || !(v >= 0 && v <= 1e7))
                return usage_error("needs seconds (0 .. 1e7)", argv[i]);
            if (strcmp(s, "--start-seconds") == 0) {
                a.start_s = v;
                a.has_start_s = 1;
            } else if (strcmp(s, "--end-seconds") == 0) {
                a.end_s = v;
                a.has_end_s = 1;
            } else if (s[2] == 'b') {
                a.before_s = v;
            } else {
                a.after_s = v;
            }
        } else if (strcmp(s, "--max-work") == 0) {
            char *end;
            unsigned long v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtoul(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end != 0 || v == 0 || v > 65536)
                return usage_error("--max-work needs a multiple 1..65536", argv[i]);
            a.max_work = v;
        } else if (strcmp(s, "--max-output") == 0 || strcmp(s, "--max-rows") == 0) {
            char *end;
            unsigned long long v;
            if (i + 1 >= argc)
                return usage_error("option needs a value", s);
            v = strtoull(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end != 0 || v == 0)
                return usage_error("needs a count >= 1", argv[i]);
            if (s[6] == 'o')
                a.max_output = v;
            else
                a.max_rows = v;
        } else if (s[0] == '-' && s[1] != 0)
            return usage_error("unknown option", s);
        else {
            if (strcmp(s, "-") == 0 && stdin_seen++)
                return usage_error("standard input (-) given twice", NULL);
            paths[npaths++] = s;
        }
    }
    if (!npaths)
        return usage_error("missing FILE", NULL);
    if (a.every && a.nticks)
        return usage_error("--ticks and --every exclude each other", NULL);
    if (strcmp(a.command, "ticks") == 0 && !a.nprops)
        return usage_error("ticks needs --props P1,P2,...", NULL);
    if (a.format && strcmp(a.command, "ticks") != 0 && strcmp(a.command, "events") != 0 &&
        strcmp(a.command, "props") != 0)
        return usage_error("--format is for ticks, events and props", a.format);
    if (a.nnames && strcmp(a.command, "events") != 0)
        return usage_error("--name is for events", NULL);
    if (a.max_output && strcmp(a.command, "dump") != 0)
        return usage_error("--max-output is for dump", NULL);
    if (a.max_rows && strcmp(a.command, "ticks") != 0)
        return usage_error("--max-rows is for ticks", NULL);
    if (npaths > 1 && strcmp(a.command, "map") == 0)
        return usage_error("map takes one FILE", NULL);
    if (strcmp(a.command, "cut") == 0) {
        if (npaths > 1)
            return usage_error("cut takes one FILE", NULL);
        if (!a.out)
            return usage_error("cut needs -o OUT", NULL);
        if (strcmp(paths[0], "-") == 0)
            return usage_error("cut reads a file, not standard input", NULL);
        if (a.has_around && (a.has_start || a.has_end || a.has_start_s || a.has_end_s))
            return usage_error("--around excludes --start, --end and their -seconds forms", NULL);
        if ((a.has_start && a.has_start_s) || (a.has_end && a.has_end_s))
            return usage_error("give an end as a tick or in seconds, not both", NULL);
        if ((a.has_start && a.has_end && a.start > a.end) ||
            (a.has_start_s && a.has_end_s && a.start_s > a.end_s))
            return usage_error("the start is after the end", NULL);
    } else if (a.has_start || a.has_end || a.has_start_s || a.has_end_s || a.has_around ||
               a.before_s > 0 || a.after_s > 0) {
        return usage_error("--start, --end, --around and their options are for cut", NULL);
    }
    if (npaths == 1)
        return run_file(&a, paths[0]);
    rc = ZDEM_EXIT_OK;
    for (i = 0; i < npaths; i++) {
        int r = zdem_cli_multi(&a, paths[i], run_file);
        if (r > rc) /* the worst: 2 (bad input) over 1 (usage) over 0 */
            rc = r;
    }
    return rc;
}
