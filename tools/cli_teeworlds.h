/* Shared between the Teeworlds commands (cli_teeworlds.c) and their 0.7
 * protocol part (cli_teeworlds7.c): the players a demo names. */
#ifndef ZDEM_CLI_TEEWORLDS_H
#define ZDEM_CLI_TEEWORLDS_H

#include <stdio.h>
#include "cli.h"
#include "teeworlds_reader.h"

#define ZDEM_CLI_TW_MAX_CLIENTS 64

typedef struct zdem_cli_tw_player {
    int seen;
    char name[17];
    char clan[13];
    int has_team, team; /* 0.6: from player_info items, the last seen; 0.7: client info */
    /* 0.7 only: the client info's country and skin parts */
    int has_skin;
    int32_t country;
    char skin[6][25];
} zdem_cli_tw_player;

/* 0.7: players from the de_client_info items a chunk wrote. */
void zdem_cli_tw7_track(zdem_cli_tw_player *players, zdem_tw_reader *rd, const zdem_tw_snap *s);
/* 0.7: 1 for a chat message, 2 for a kill message (info's counts), else 0. */
int zdem_cli_tw7_count_kind(const zdem_tw_event *ev);
/* 0.7: one events line for a message (players from the recorded client
 * messages too); returns 0. */
int zdem_cli_tw7_event(FILE *o, const zdem_cli_args *a, zdem_cli_tw_player *players,
                       const zdem_tw_event *ev);
/* The "type" of every events line (events --name), both protocols. */
extern const char *const zdem_cli_tw_event_types[];
extern const size_t zdem_cli_tw_num_event_types;

#endif
