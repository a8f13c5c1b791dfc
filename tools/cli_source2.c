/* zdem info / dump for Source 2 demos. */
#include "cli.h"
#include "cli_source2_state.h"

#include <stdlib.h>
#include <string.h>

#include "source2_demo.h"
#include "source2_parse.h"
#include "source2_dispatch.h"
#include "source2_ids.h"
#include "source2_pb.h"

typedef struct s2_summary {
    zdem_s2_header hdr;
    zdem_pb_CDemoFileHeader fh;
    int have_fh;
    zdem_pb_CDemoFileInfo fi;
    zdem_s2_game game;
    uint32_t outer;
    uint32_t compressed;
    uint32_t cmd_count[64];
    uint32_t unknown_cmds;
    int64_t first_tick, last_tick, max_tick;
} s2_summary;

static zdem_s2_game game_of(const zdem_view *dir)
{
    return dir->ptr ? zdem_s2_game_from_dir(dir->ptr, dir->len) : ZDEM_S2_GAME_UNKNOWN;
}

/* Largest payload scratch any frame needs; the CLI mallocs it once. */
static uint8_t *alloc_scratch(const zdem_cli_file *f, size_t *cap, zdem_error *err)
{
    size_t need = 0;
    uint8_t *p;
    if (zdem_s2_scratch_needed(f->data, f->size, &need, err) != ZDEM_OK)
        return NULL;
    *cap = need ? need : 1;
    p = malloc(*cap);
    if (!p)
        zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "out of memory for decompression scratch");
    return p;
}

static int summarize(const zdem_cli_file *f, s2_summary *s, uint8_t *scratch,
                     size_t cap, zdem_error *err)
{
    zdem_s2_reader r;
    zdem_s2_outer m;
    const uint8_t *data;
    size_t size;
    int rc;

    memset(s, 0, sizeof *s);
    s->first_tick = s->last_tick = s->max_tick = -1;
    if (zdem_s2_read_header(f->data, f->size, &s->hdr, err) != ZDEM_OK)
        return -1;
    zdem_s2_reader_init(&r, f->data, f->size);
    while ((rc = zdem_s2_next(&r, &m, err)) == 1) {
        if (s->outer == 0)
            s->first_tick = m.tick;
        s->outer++;
        s->compressed += m.compressed ? 1u : 0u;
        if (m.cmd < 64)
            s->cmd_count[m.cmd]++;
        else
            s->unknown_cmds++;
        if (m.tick >= 0) {
            s->last_tick = m.tick; /* last in stream order: POV demos rewind at SyncTick */
            if (m.tick > s->max_tick)
                s->max_tick = m.tick;
        }
        if (m.cmd == ZDEM_S2_DEM_FILEHEADER && !s->have_fh) {
            if (zdem_s2_payload(&m, scratch, cap, &data, &size, err) != ZDEM_OK)
                return -1;
            if (zdem_pb_CDemoFileHeader_decode(data, size, &s->fh, NULL, NULL, err) != ZDEM_OK) {
                err->offset += m.payload_offset; /* report a file offset */
                return -1;
            }
            s->have_fh = 1;
            s->game = game_of(&s->fh.game_directory);
        }
    }
    if (rc < 0)
        return -1;
    if (zdem_s2_read_fileinfo(f->data, f->size, &s->hdr, scratch, cap, &data, &size, err) != ZDEM_OK)
        return -1;
    if (zdem_pb_CDemoFileInfo_decode(data, size, &s->fi, NULL, NULL, err) != ZDEM_OK) {
        err->offset += s->hdr.fileinfo_offset;
        return -1;
    }
    return 0;
}

static void json_view(FILE *o, const char *key, const zdem_view *v, int has)
{
    fprintf(o, ",\"%s\":", key);
    if (has)
        zdem_json_str(o, v->ptr, v->len);
    else
        fputs("null", o);
}

static void print_cmd_name(FILE *o, uint32_t id)
{
    const char *n = zdem_s2_demo_cmd_name(id);
    if (n)
        fputs(n, o);
    else
        fprintf(o, "DEM_%u", id);
}

static int info(const zdem_cli_args *a, const zdem_cli_file *f)
{
    s2_summary s;
    zdem_error err;
    size_t cap = 0;
    uint8_t *scratch;
    uint32_t i;
    int first = 1;
    FILE *o = stdout;

    zdem_error_clear(&err);
    scratch = alloc_scratch(f, &cap, &err);
    if (!scratch)
        return zdem_cli_fail(f, &err);
    if (summarize(f, &s, scratch, cap, &err) < 0) {
        free(scratch);
        return zdem_cli_fail(f, &err);
    }
    free(scratch);
    if (a->json) {
        fprintf(o, "{\"format\":\"source2\",\"game\":\"%s\"", zdem_s2_game_name(s.game));
        json_view(o, "map_name", &s.fh.map_name, s.fh.has_map_name);
        json_view(o, "server_name", &s.fh.server_name, s.fh.has_server_name);
        json_view(o, "client_name", &s.fh.client_name, s.fh.has_client_name);
        json_view(o, "game_directory", &s.fh.game_directory, s.fh.has_game_directory);
        json_view(o, "demo_file_stamp", &s.fh.demo_file_stamp, s.fh.has_demo_file_stamp);
        json_view(o, "demo_version_name", &s.fh.demo_version_name, s.fh.has_demo_version_name);
        fprintf(o, ",\"network_protocol\":%ld", (long)s.fh.network_protocol);
        fprintf(o, ",\"build_num\":%ld", (long)s.fh.build_num);
        fprintf(o, ",\"fileinfo_offset\":%lu,\"spawngroups_offset\":%lu",
                (unsigned long)s.hdr.fileinfo_offset, (unsigned long)s.hdr.spawngroups_offset);
        fprintf(o, ",\"playback_ticks\":%ld,\"playback_frames\":%ld,\"playback_time\":%.4f",
                (long)s.fi.playback_ticks, (long)s.fi.playback_frames, (double)s.fi.playback_time);
        fprintf(o, ",\"outer_messages\":%lu,\"compressed_messages\":%lu",
                (unsigned long)s.outer, (unsigned long)s.compressed);
        fputs(",\"commands\":{", o);
        for (i = 0; i < 64; i++) {
            if (!s.cmd_count[i])
                continue;
            fputs(first ? "\"" : ",\"", o);
            first = 0;
            print_cmd_name(o, i);
            fprintf(o, "\":%lu", (unsigned long)s.cmd_count[i]);
        }
        fputs("}", o);
        fprintf(o, ",\"first_tick\":%lld,\"last_tick\":%lld,\"max_tick\":%lld",
                (long long)s.first_tick, (long long)s.last_tick, (long long)s.max_tick);
        {
            int rc = zdem_cli_source2_info_state(o, f); /* entities, tables, players */
            if (rc != 0) {
                fputs("}\n", o);
                return rc;
            }
        }
        fputs("}\n", o);
    } else {
        fprintf(o, "format:            source2 (%s)\n", zdem_s2_game_name(s.game));
        fprintf(o, "map:               %.*s\n", (int)s.fh.map_name.len, (const char *)s.fh.map_name.ptr);
        fprintf(o, "server:            %.*s\n", (int)s.fh.server_name.len, (const char *)s.fh.server_name.ptr);
        fprintf(o, "client:            %.*s\n", (int)s.fh.client_name.len, (const char *)s.fh.client_name.ptr);
        fprintf(o, "network protocol:  %ld\n", (long)s.fh.network_protocol);
        fprintf(o, "build:             %ld\n", (long)s.fh.build_num);
        fprintf(o, "playback:          %ld ticks, %ld frames, %.3f s\n", (long)s.fi.playback_ticks,
                (long)s.fi.playback_frames, (double)s.fi.playback_time);
        fprintf(o, "outer messages:    %lu (%lu compressed)\n", (unsigned long)s.outer,
                (unsigned long)s.compressed);
        fprintf(o, "ticks:             first %lld, last %lld\n", (long long)s.first_tick,
                (long long)s.last_tick);
        for (i = 0; i < 64; i++)
            if (s.cmd_count[i]) {
                fputs("  ", o);
                print_cmd_name(o, i);
                fprintf(o, ": %lu\n", (unsigned long)s.cmd_count[i]);
            }
    }
    return ZDEM_EXIT_OK;
}

/* ---- dump ------------------------------------------------------------------ */

static int name_matches(const char *filter, const char *name, uint32_t id)
{
    char num[16];
    if (!filter)
        return 1;
    if (name && strcmp(filter, name) == 0)
        return 1;
    snprintf(num, sizeof num, "%lu", (unsigned long)id);
    return strcmp(filter, num) == 0;
}

static zdem_status dump_outer(void *user, const zdem_s2_outer *m)
{
    const zdem_cli_args *a = user;
    const char *name = zdem_s2_demo_cmd_name(m->cmd);
    char buf[32];
    if (!name_matches(a->type, name, m->cmd))
        return ZDEM_OK;
    if (!name) {
        snprintf(buf, sizeof buf, "DEM_%lu", (unsigned long)m->cmd);
        name = buf;
    }
    if (a->json)
        printf("{\"kind\":\"outer\",\"index\":%lu,\"offset\":%llu,\"tick\":%lld,"
               "\"id\":%lu,\"name\":\"%s\",\"size\":%lu,\"compressed\":%s}\n",
               (unsigned long)m->index, (unsigned long long)m->offset,
               (long long)m->tick, (unsigned long)m->cmd, name,
               (unsigned long)m->stored_size, m->compressed ? "true" : "false");
    else
        printf("%6lu  off %-9llu tick %-7lld id %-4lu %-36s %lu%s\n",
               (unsigned long)m->index, (unsigned long long)m->offset,
               (long long)m->tick, (unsigned long)m->cmd, name,
               (unsigned long)m->stored_size, m->compressed ? " (snappy)" : "");
    return ZDEM_OK;
}

static zdem_status dump_inner(void *user, zdem_s2_game game, const zdem_s2_outer *o,
                              const zdem_s2_inner *m)
{
    const zdem_cli_args *a = user;
    const char *name = zdem_s2_inner_msg_name(game, m->type);
    char buf[32];
    if (!name_matches(a->type, name, m->type))
        return ZDEM_OK;
    if (!name) {
        snprintf(buf, sizeof buf, "unknown_%lu", (unsigned long)m->type);
        name = buf;
    }
    if (a->json)
        printf("{\"kind\":\"inner\",\"outer\":%lu,\"index\":%lu,\"bit_offset\":%llu,"
               "\"tick\":%lld,\"id\":%lu,\"name\":\"%s\",\"size\":%lu}\n",
               (unsigned long)o->index, (unsigned long)m->index,
               (unsigned long long)m->bit_offset, (long long)o->tick,
               (unsigned long)m->type, name, (unsigned long)m->size);
    else
        printf("%6lu.%-4lu bit %-9llu tick %-7lld id %-4lu %-36s %lu\n",
               (unsigned long)o->index, (unsigned long)m->index,
               (unsigned long long)m->bit_offset, (long long)o->tick,
               (unsigned long)m->type, name, (unsigned long)m->size);
    return ZDEM_OK;
}

static int dump(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_parse_cbs cbs;
    zdem_error err;
    uint8_t *scratch;
    size_t cap = 0;
    zdem_status st;

    zdem_error_clear(&err);
    scratch = alloc_scratch(f, &cap, &err);
    if (!scratch)
        return zdem_cli_fail(f, &err);
    memset(&cbs, 0, sizeof cbs);
    cbs.on_outer = dump_outer;
    cbs.on_inner = dump_inner;
    st = zdem_s2_parse(f->data, f->size, &cbs, (void *)a, scratch, cap, &err);
    free(scratch);
    return st == ZDEM_OK ? ZDEM_EXIT_OK : zdem_cli_fail(f, &err);
}

int zdem_cli_source2(const zdem_cli_args *a, const zdem_cli_file *f)
{
    if (strcmp(a->command, "info") == 0)
        return info(a, f);
    if (strcmp(a->command, "dump") == 0)
        return dump(a, f);
    if (strcmp(a->command, "events") == 0)
        return zdem_cli_source2_events(a, f);
    if (strcmp(a->command, "entities") == 0)
        return zdem_cli_source2_entities(a, f);
    return zdem_cli_unsupported(a, "Source 2");
}
