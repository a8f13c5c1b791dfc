/* Source 2 events mode: game events, chat, players (userinfo) and the
 * combat log without entity state, in memory a microcontroller has. What
 * it leaves unread, and the configuration that follows from that. */
#include "source2_state_int.h"

/* Frames events never need: serializers and classes (entities only) and
 * full packets (an entity snapshot plus a dump of the tables the packets
 * already built). Their payloads, the largest in a demo, are neither
 * gathered nor decompressed. DEM_StringTables dumps are read (only their
 * userinfo and CombatLogNames tables kept): Dota 2 names players there
 * that no packet lists. */
uint32_t zdem_s2_events_unread_cmds(void)
{
    return (1u << ZDEM_S2_DEM_SENDTABLES) | (1u << ZDEM_S2_DEM_CLASSINFO) |
           (1u << ZDEM_S2_DEM_FULLPACKET);
}

void zdem_s2_config_events(zdem_s2_config *cfg)
{
    zdem_s2_config_default(cfg);
    cfg->events_only = 1;
    cfg->skip_entities = 1;
    cfg->max_entities = 1; /* 0 would mean the default */
    cfg->max_field_paths = 1;
    cfg->plan_cache = 0; /* no entities */
    cfg->frame_buffer = ZDEM_S2_EVENTS_FRAME_BUFFER;
    cfg->inner_buffer = (size_t)64 << 10;
    cfg->tmp_size = 64u << 10;
    cfg->gather_buffer = (size_t)128 << 10;
}
