/* Source 2 tick rows into a zdem_table (see source2_ticks.h). */
#include "source2_ticks.h"
#include "zdem_near.h"
#include "source2_items.h"

#include <stddef.h>
#include <string.h>

/* Where a name is read: the row's entity or pawn, its controller, either,
 * the game rules entity, the player's team entity, the pawn's active
 * weapon. */
enum { TG_SELF = 0, TG_PAWN = 1, TG_CTRL = 2, TG_ANY = 3, TG_RULES = 4, TG_TEAM = 5, TG_WEAPON = 6 };
/* How: the value as it is, a coordinate (cell and offset), an item
 * definition index as its name, the pawn's weapons as a list of names. */
enum { SP_PLAIN = 0, SP_COORD = 1, SP_ITEM_NAME = 2, SP_INVENTORY = 3 };
#define NOT_YET (-2)
#define MAX_COMP 4

/* One property name and where it was found, cached per class: the
 * entities read for one name are nearly always of one class, so a name is
 * resolved once, not once per row. Slot 0: pawn (or the row's entity),
 * slot 1: controller. */
typedef struct tref {
    char name[ZDEM_S2_TICKS_NAME_MAX + 1];
    uint32_t len;
    uint8_t target;
    int32_t cls[2];
    int8_t ok[2];
    int8_t comp[2];  /* vector component the name's ".N" picked, or -1 */
    zdem_s2_fp fp[2];
    zdem_s2_fp vec_fp[2]; /* ok == 2: the name without ".N" */
} tref;

typedef struct tprop {
    char col_name[ZDEM_S2_TICKS_NAME_MAX + 1]; /* as asked */
    uint8_t special;
    uint8_t alias;   /* a demoparser2 name: known whatever the demo */
    tref a, b;       /* b: SP_COORD's offset */
    int32_t col;     /* NOT_YET until the first row; -1 none */
    int32_t comp_col[MAX_COMP];
} tprop;

struct zdem_s2_ticks {
    zdem_table *table;
    const char *class_name; /* NULL: players */
    size_t class_len;
    const int32_t *ticks;
    uint32_t nticks, tick_at, every;
    int64_t last_tick;
    uint32_t nprops;
    tprop *props;
    int32_t *ents;          /* tracked entity indexes, ascending */
    uint32_t nents, cap;
    uint64_t untracked;
    int32_t col_tick, col_ent;
    tref pawn_handle[4];    /* controller -> pawn handles, first found wins */
    int checked;            /* the names were checked against the classes */
    const char *bad;        /* NULL, or msg: an unknown property or class */
    char msg[384];
    zdem_s2_roster roster;  /* the rules, team and C4 entities */
    /* what rules, team, weapon and inventory names read on the way */
    tref team_ref, weapon_ref, life_ref, weapons_ref, ammo_ref, def_ref, owner_ref;
    char inv[512];          /* an inventory value: names joined by "," */
};

/* demoparser2's friendly names and what they read (zdem's dotted names;
 * checked against its parseTicks by tests/test_source2_ticks.sh). */
static const struct alias {
    const char *name, *target_name, *offset_name;
    uint8_t target, special;
} aliases[] = {
    {"X", "CBodyComponent.m_cellX", "CBodyComponent.m_vecX", TG_PAWN, SP_COORD},
    {"Y", "CBodyComponent.m_cellY", "CBodyComponent.m_vecY", TG_PAWN, SP_COORD},
    {"Z", "CBodyComponent.m_cellZ", "CBodyComponent.m_vecZ", TG_PAWN, SP_COORD},
    {"pitch", "m_angEyeAngles.0", NULL, TG_PAWN, SP_PLAIN},
    {"yaw", "m_angEyeAngles.1", NULL, TG_PAWN, SP_PLAIN},
    {"health", "m_iHealth", NULL, TG_PAWN, SP_PLAIN},
    {"team_num", "m_iTeamNum", NULL, TG_PAWN, SP_PLAIN},
    {"name", "m_iszPlayerName", NULL, TG_CTRL, SP_PLAIN},
    {"steamid", "m_steamID", NULL, TG_CTRL, SP_PLAIN},
    {"balance", "m_pInGameMoneyServices.m_iAccount", NULL, TG_CTRL, SP_PLAIN},
    {"active_weapon", "m_pWeaponServices.m_hActiveWeapon", NULL, TG_PAWN, SP_PLAIN},
    {"armor_value", "m_ArmorValue", NULL, TG_PAWN, SP_PLAIN},
    {"life_state", "m_lifeState", NULL, TG_PAWN, SP_PLAIN},
    {"is_alive", "m_bPawnIsAlive", NULL, TG_CTRL, SP_PLAIN},
    {"score", "m_iScore", NULL, TG_CTRL, SP_PLAIN},
    {"ping", "m_iPing", NULL, TG_CTRL, SP_PLAIN},
    {"player_name", "m_iszPlayerName", NULL, TG_CTRL, SP_PLAIN},
    {"player_steamid", "m_steamID", NULL, TG_CTRL, SP_PLAIN},
    /* the pawn's active weapon */
    {"active_weapon_name", "m_iItemDefinitionIndex", NULL, TG_WEAPON, SP_ITEM_NAME},
    {"active_weapon_ammo", "m_iClip1", NULL, TG_WEAPON, SP_PLAIN},
    {"item_def_idx", "m_iItemDefinitionIndex", NULL, TG_WEAPON, SP_PLAIN},
    {"weapon_quality", "m_iEntityQuality", NULL, TG_WEAPON, SP_PLAIN},
    {"entity_lvl", "m_iEntityLevel", NULL, TG_WEAPON, SP_PLAIN},
    {"item_id_high", "m_iItemIDHigh", NULL, TG_WEAPON, SP_PLAIN},
    {"item_id_low", "m_iItemIDLow", NULL, TG_WEAPON, SP_PLAIN},
    {"item_account_id", "m_iAccountID", NULL, TG_WEAPON, SP_PLAIN},
    {"inventory_position", "m_iInventoryPosition", NULL, TG_WEAPON, SP_PLAIN},
    {"is_initialized", "m_bInitialized", NULL, TG_WEAPON, SP_PLAIN},
    {"custom_name", "m_szCustomName", NULL, TG_WEAPON, SP_PLAIN},
    {"orig_owner_xuid_low", "m_OriginalOwnerXuidLow", NULL, TG_WEAPON, SP_PLAIN},
    {"orig_owner_xuid_high", "m_OriginalOwnerXuidHigh", NULL, TG_WEAPON, SP_PLAIN},
    {"fall_back_paint_kit", "m_nFallbackPaintKit", NULL, TG_WEAPON, SP_PLAIN},
    {"fall_back_seed", "m_nFallbackSeed", NULL, TG_WEAPON, SP_PLAIN},
    {"fall_back_wear", "m_flFallbackWear", NULL, TG_WEAPON, SP_PLAIN},
    {"fall_back_stat_track", "m_nFallbackStatTrak", NULL, TG_WEAPON, SP_PLAIN},
    {"m_iState", "m_iState", NULL, TG_WEAPON, SP_PLAIN},
    {"fire_seq_start_time", "m_flFireSequenceStartTime", NULL, TG_WEAPON, SP_PLAIN},
    {"fire_seq_start_time_change", "m_nFireSequenceStartTimeChange", NULL, TG_WEAPON, SP_PLAIN},
    {"weapon_mode", "m_weaponMode", NULL, TG_WEAPON, SP_PLAIN},
    {"accuracy_penalty", "m_fAccuracyPenalty", NULL, TG_WEAPON, SP_PLAIN},
    {"i_recoil_idx", "m_iRecoilIndex", NULL, TG_WEAPON, SP_PLAIN},
    {"fl_recoil_idx", "m_flRecoilIndex", NULL, TG_WEAPON, SP_PLAIN},
    {"is_burst_mode", "m_bBurstMode", NULL, TG_WEAPON, SP_PLAIN},
    {"is_in_reload", "m_bInReload", NULL, TG_WEAPON, SP_PLAIN},
    {"reload_visually_complete", "m_bReloadVisuallyComplete", NULL, TG_WEAPON, SP_PLAIN},
    {"dropped_at_time", "m_flDroppedAtTime", NULL, TG_WEAPON, SP_PLAIN},
    {"is_hauled_back", "m_bIsHauledBack", NULL, TG_WEAPON, SP_PLAIN},
    {"is_silencer_on", "m_bSilencerOn", NULL, TG_WEAPON, SP_PLAIN},
    {"time_silencer_switch_complete", "m_flTimeSilencerSwitchComplete", NULL, TG_WEAPON, SP_PLAIN},
    {"orig_team_number", "m_iOriginalTeamNumber", NULL, TG_WEAPON, SP_PLAIN},
    {"prev_owner", "m_hPrevOwner", NULL, TG_WEAPON, SP_PLAIN},
    {"last_shot_time", "m_fLastShotTime", NULL, TG_WEAPON, SP_PLAIN},
    {"iron_sight_mode", "m_iIronSightMode", NULL, TG_WEAPON, SP_PLAIN},
    {"num_empty_attacks", "m_iNumEmptyAttacks", NULL, TG_WEAPON, SP_PLAIN},
    {"zoom_lvl", "m_zoomLevel", NULL, TG_WEAPON, SP_PLAIN},
    {"burst_shots_remaining", "m_iBurstShotsRemaining", NULL, TG_WEAPON, SP_PLAIN},
    {"needs_bolt_action", "m_bNeedsBoltAction", NULL, TG_WEAPON, SP_PLAIN},
    {"next_primary_attack_tick", "m_nNextPrimaryAttackTick", NULL, TG_WEAPON, SP_PLAIN},
    {"next_primary_attack_tick_ratio", "m_flNextPrimaryAttackTickRatio", NULL, TG_WEAPON, SP_PLAIN},
    {"next_secondary_attack_tick", "m_nNextSecondaryAttackTick", NULL, TG_WEAPON, SP_PLAIN},
    {"next_secondary_attack_tick_ratio", "m_flNextSecondaryAttackTickRatio", NULL, TG_WEAPON, SP_PLAIN},
    /* the pawn */
    {"inventory", "m_pWeaponServices.m_hMyWeapons", NULL, TG_PAWN, SP_INVENTORY},
    {"has_defuser", "m_pItemServices.m_bHasDefuser", NULL, TG_PAWN, SP_PLAIN},
    {"has_helmet", "m_pItemServices.m_bHasHelmet", NULL, TG_PAWN, SP_PLAIN},
    {"last_place_name", "m_szLastPlaceName", NULL, TG_PAWN, SP_PLAIN},
    {"flash_duration", "m_flFlashDuration", NULL, TG_PAWN, SP_PLAIN},
    {"flash_max_alpha", "m_flFlashMaxAlpha", NULL, TG_PAWN, SP_PLAIN},
    {"move_collide", "m_MoveCollide", NULL, TG_PAWN, SP_PLAIN},
    {"move_type", "m_MoveType", NULL, TG_PAWN, SP_PLAIN},
    {"looking_at_weapon", "m_pWeaponServices.m_bIsLookingAtWeapon", NULL, TG_PAWN, SP_PLAIN},
    {"holding_look_at_weapon", "m_pWeaponServices.m_bIsHoldingLookAtWeapon", NULL, TG_PAWN, SP_PLAIN},
    {"next_attack_time", "m_pWeaponServices.m_flNextAttack", NULL, TG_PAWN, SP_PLAIN},
    {"max_speed", "m_pMovementServices.m_flMaxspeed", NULL, TG_PAWN, SP_PLAIN},
    {"duck_amount", "m_pMovementServices.m_flDuckAmount", NULL, TG_PAWN, SP_PLAIN},
    {"duck_speed", "m_pMovementServices.m_flDuckSpeed", NULL, TG_PAWN, SP_PLAIN},
    {"duck_overrdie", "m_pMovementServices.m_bDuckOverride", NULL, TG_PAWN, SP_PLAIN},
    {"old_jump_pressed", "m_pMovementServices.m_bOldJumpPressed", NULL, TG_PAWN, SP_PLAIN},
    {"is_rescuing", "m_pActionTrackingServices.m_bIsRescuing", NULL, TG_PAWN, SP_PLAIN},
    {"spotted", "m_bSpotted", NULL, TG_PAWN, SP_PLAIN},
    {"time_last_injury", "m_flTimeOfLastInjury", NULL, TG_PAWN, SP_PLAIN},
    {"player_state", "m_iPlayerState", NULL, TG_PAWN, SP_PLAIN},
    {"is_scoped", "m_bIsScoped", NULL, TG_PAWN, SP_PLAIN},
    {"is_walking", "m_bIsWalking", NULL, TG_PAWN, SP_PLAIN},
    {"resume_zoom", "m_bResumeZoom", NULL, TG_PAWN, SP_PLAIN},
    {"is_defusing", "m_bIsDefusing", NULL, TG_PAWN, SP_PLAIN},
    {"is_grabbing_hostage", "m_bIsGrabbingHostage", NULL, TG_PAWN, SP_PLAIN},
    {"blocking_use_in_progess", "m_iBlockingUseActionInProgress", NULL, TG_PAWN, SP_PLAIN},
    {"molotov_damage_time", "m_fMolotovDamageTime", NULL, TG_PAWN, SP_PLAIN},
    {"moved_since_spawn", "m_bHasMovedSinceSpawn", NULL, TG_PAWN, SP_PLAIN},
    {"in_bomb_zone", "m_bInBombZone", NULL, TG_PAWN, SP_PLAIN},
    {"in_buy_zone", "m_bInBuyZone", NULL, TG_PAWN, SP_PLAIN},
    {"in_no_defuse_area", "m_bInNoDefuseArea", NULL, TG_PAWN, SP_PLAIN},
    {"which_bomb_zone", "m_nWhichBombZone", NULL, TG_PAWN, SP_PLAIN},
    {"in_hostage_rescue_zone", "m_bInHostageRescueZone", NULL, TG_PAWN, SP_PLAIN},
    {"shots_fired", "m_iShotsFired", NULL, TG_PAWN, SP_PLAIN},
    {"velo_modifier", "m_flVelocityModifier", NULL, TG_PAWN, SP_PLAIN},
    {"wait_for_no_attack", "m_bWaitForNoAttack", NULL, TG_PAWN, SP_PLAIN},
    {"round_start_equip_value", "m_unRoundStartEquipmentValue", NULL, TG_PAWN, SP_PLAIN},
    {"current_equip_value", "m_unCurrentEquipmentValue", NULL, TG_PAWN, SP_PLAIN},
    {"glove_item_idx", "m_iItemDefinitionIndex", NULL, TG_PAWN, SP_PLAIN},
    /* the controller */
    {"kills_total", "m_pActionTrackingServices.m_iKills", NULL, TG_CTRL, SP_PLAIN},
    {"deaths_total", "m_pActionTrackingServices.m_iDeaths", NULL, TG_CTRL, SP_PLAIN},
    {"assists_total", "m_pActionTrackingServices.m_iAssists", NULL, TG_CTRL, SP_PLAIN},
    {"alive_time_total", "m_pActionTrackingServices.m_iLiveTime", NULL, TG_CTRL, SP_PLAIN},
    {"headshot_kills_total", "m_pActionTrackingServices.m_iHeadShotKills", NULL, TG_CTRL, SP_PLAIN},
    {"ace_rounds_total", "m_pActionTrackingServices.m_iEnemy5Ks", NULL, TG_CTRL, SP_PLAIN},
    {"4k_rounds_total", "m_pActionTrackingServices.m_iEnemy4Ks", NULL, TG_CTRL, SP_PLAIN},
    {"3k_rounds_total", "m_pActionTrackingServices.m_iEnemy3Ks", NULL, TG_CTRL, SP_PLAIN},
    {"damage_total", "m_pActionTrackingServices.m_iDamage", NULL, TG_CTRL, SP_PLAIN},
    {"objective_total", "m_pActionTrackingServices.m_iObjective", NULL, TG_CTRL, SP_PLAIN},
    {"utility_damage_total", "m_pActionTrackingServices.m_iUtilityDamage", NULL, TG_CTRL, SP_PLAIN},
    {"enemies_flashed_total", "m_pActionTrackingServices.m_iEnemiesFlashed", NULL, TG_CTRL, SP_PLAIN},
    {"start_balance", "m_pInGameMoneyServices.m_iStartAccount", NULL, TG_CTRL, SP_PLAIN},
    {"total_cash_spent", "m_pInGameMoneyServices.m_iTotalCashSpent", NULL, TG_CTRL, SP_PLAIN},
    {"cash_spent_this_round", "m_pInGameMoneyServices.m_iCashSpentThisRound", NULL, TG_CTRL, SP_PLAIN},
    {"music_kit_id", "m_pInventoryServices.m_unMusicID", NULL, TG_CTRL, SP_PLAIN},
    {"leader_honors", "m_pInventoryServices.m_nPersonaDataPublicCommendsLeader", NULL, TG_CTRL, SP_PLAIN},
    {"teacher_honors", "m_pInventoryServices.m_nPersonaDataPublicCommendsTeacher", NULL, TG_CTRL, SP_PLAIN},
    {"friendly_honors", "m_pInventoryServices.m_nPersonaDataPublicCommendsFriendly", NULL, TG_CTRL, SP_PLAIN},
    {"rank", "m_iCompetitiveRanking", NULL, TG_CTRL, SP_PLAIN},
    {"rank_if_win", "m_iCompetitiveRankingPredicted_Win", NULL, TG_CTRL, SP_PLAIN},
    {"rank_if_loss", "m_iCompetitiveRankingPredicted_Loss", NULL, TG_CTRL, SP_PLAIN},
    {"rank_if_tie", "m_iCompetitiveRankingPredicted_Tie", NULL, TG_CTRL, SP_PLAIN},
    {"comp_wins", "m_iCompetitiveWins", NULL, TG_CTRL, SP_PLAIN},
    {"comp_rank_type", "m_iCompetitiveRankType", NULL, TG_CTRL, SP_PLAIN},
    {"mvps", "m_iMVPs", NULL, TG_CTRL, SP_PLAIN},
    {"is_auto_muted", "m_bHasCommunicationAbuseMute", NULL, TG_CTRL, SP_PLAIN},
    {"crosshair_code", "m_szCrosshairCodes", NULL, TG_CTRL, SP_PLAIN},
    {"pending_team_num", "m_iPendingTeamNum", NULL, TG_CTRL, SP_PLAIN},
    {"ever_played_on_team", "m_bEverPlayedOnTeam", NULL, TG_CTRL, SP_PLAIN},
    {"clan_name", "m_szClan", NULL, TG_CTRL, SP_PLAIN},
    {"is_coach_team", "m_iCoachingTeam", NULL, TG_CTRL, SP_PLAIN},
    {"is_controlling_bot", "m_bControllingBot", NULL, TG_CTRL, SP_PLAIN},
    {"has_controlled_bot_this_round", "m_bHasControlledBotThisRound", NULL, TG_CTRL, SP_PLAIN},
    {"can_control_bot", "m_bCanControlObservedBot", NULL, TG_CTRL, SP_PLAIN},
    {"armor", "m_iPawnArmor", NULL, TG_CTRL, SP_PLAIN},
    {"spawn_time", "m_iPawnLifetimeStart", NULL, TG_CTRL, SP_PLAIN},
    {"death_time", "m_iPawnLifetimeEnd", NULL, TG_CTRL, SP_PLAIN},
    {"is_connected", "m_iConnected", NULL, TG_CTRL, SP_PLAIN},
    {"fov", "m_iDesiredFOV", NULL, TG_CTRL, SP_PLAIN},
    /* the player's team entity */
    {"team_surrendered", "m_bSurrendered", NULL, TG_TEAM, SP_PLAIN},
    {"team_rounds_total", "m_iScore", NULL, TG_TEAM, SP_PLAIN},
    {"team_name", "m_szTeamname", NULL, TG_TEAM, SP_PLAIN},
    {"team_score_overtime", "m_scoreOvertime", NULL, TG_TEAM, SP_PLAIN},
    {"team_match_stat", "m_szTeamMatchStat", NULL, TG_TEAM, SP_PLAIN},
    {"team_num_map_victories", "m_numMapVictories", NULL, TG_TEAM, SP_PLAIN},
    {"team_score_first_half", "m_scoreFirstHalf", NULL, TG_TEAM, SP_PLAIN},
    {"team_score_second_half", "m_scoreSecondHalf", NULL, TG_TEAM, SP_PLAIN},
    {"team_clan_name", "m_szClanTeamname", NULL, TG_TEAM, SP_PLAIN},
    /* the game rules */
    {"is_freeze_period", "m_pGameRules.m_bFreezePeriod", NULL, TG_RULES, SP_PLAIN},
    {"is_warmup_period", "m_pGameRules.m_bWarmupPeriod", NULL, TG_RULES, SP_PLAIN},
    {"warmup_period_end", "m_pGameRules.m_fWarmupPeriodEnd", NULL, TG_RULES, SP_PLAIN},
    {"warmup_period_start", "m_pGameRules.m_fWarmupPeriodStart", NULL, TG_RULES, SP_PLAIN},
    {"is_terrorist_timeout", "m_pGameRules.m_bTerroristTimeOutActive", NULL, TG_RULES, SP_PLAIN},
    {"is_ct_timeout", "m_pGameRules.m_bCTTimeOutActive", NULL, TG_RULES, SP_PLAIN},
    {"terrorist_timeout_remaining", "m_pGameRules.m_flTerroristTimeOutRemaining", NULL, TG_RULES, SP_PLAIN},
    {"ct_timeout_remaining", "m_pGameRules.m_flCTTimeOutRemaining", NULL, TG_RULES, SP_PLAIN},
    {"num_terrorist_timeouts", "m_pGameRules.m_nTerroristTimeOuts", NULL, TG_RULES, SP_PLAIN},
    {"num_ct_timeouts", "m_pGameRules.m_nCTTimeOuts", NULL, TG_RULES, SP_PLAIN},
    {"is_technical_timeout", "m_pGameRules.m_bTechnicalTimeOut", NULL, TG_RULES, SP_PLAIN},
    {"is_waiting_for_resume", "m_pGameRules.m_bMatchWaitingForResume", NULL, TG_RULES, SP_PLAIN},
    {"match_start_time", "m_pGameRules.m_fMatchStartTime", NULL, TG_RULES, SP_PLAIN},
    {"round_start_time", "m_pGameRules.m_fRoundStartTime", NULL, TG_RULES, SP_PLAIN},
    {"restart_round_time", "m_pGameRules.m_flRestartRoundTime", NULL, TG_RULES, SP_PLAIN},
    {"is_game_restart?", "m_pGameRules.m_bGameRestart", NULL, TG_RULES, SP_PLAIN},
    {"game_start_time", "m_pGameRules.m_flGameStartTime", NULL, TG_RULES, SP_PLAIN},
    {"time_until_next_phase_start", "m_pGameRules.m_timeUntilNextPhaseStarts", NULL, TG_RULES, SP_PLAIN},
    {"game_phase", "m_pGameRules.m_gamePhase", NULL, TG_RULES, SP_PLAIN},
    {"total_rounds_played", "m_pGameRules.m_totalRoundsPlayed", NULL, TG_RULES, SP_PLAIN},
    {"rounds_played_this_phase", "m_pGameRules.m_nRoundsPlayedThisPhase", NULL, TG_RULES, SP_PLAIN},
    {"hostages_remaining", "m_pGameRules.m_iHostagesRemaining", NULL, TG_RULES, SP_PLAIN},
    {"any_hostages_reached", "m_pGameRules.m_bAnyHostageReached", NULL, TG_RULES, SP_PLAIN},
    {"has_bombites", "m_pGameRules.m_bMapHasBombTarget", NULL, TG_RULES, SP_PLAIN},
    {"has_rescue_zone", "m_pGameRules.m_bMapHasRescueZone", NULL, TG_RULES, SP_PLAIN},
    {"has_buy_zone", "m_pGameRules.m_bMapHasBuyZone", NULL, TG_RULES, SP_PLAIN},
    {"is_matchmaking", "m_pGameRules.m_bIsQueuedMatchmaking", NULL, TG_RULES, SP_PLAIN},
    {"match_making_mode", "m_pGameRules.m_nQueuedMatchmakingMode", NULL, TG_RULES, SP_PLAIN},
    {"is_valve_dedicated_server", "m_pGameRules.m_bIsValveDS", NULL, TG_RULES, SP_PLAIN},
    {"gungame_prog_weap_ct", "m_pGameRules.m_iNumGunGameProgressiveWeaponsCT", NULL, TG_RULES, SP_PLAIN},
    {"gungame_prog_weap_t", "m_pGameRules.m_iNumGunGameProgressiveWeaponsT", NULL, TG_RULES, SP_PLAIN},
    {"spectator_slot_count", "m_pGameRules.m_iSpectatorSlotCount", NULL, TG_RULES, SP_PLAIN},
    {"is_match_started", "m_pGameRules.m_bHasMatchStarted", NULL, TG_RULES, SP_PLAIN},
    {"n_best_of_maps", "m_pGameRules.m_numBestOfMaps", NULL, TG_RULES, SP_PLAIN},
    {"is_bomb_dropped", "m_pGameRules.m_bBombDropped", NULL, TG_RULES, SP_PLAIN},
    {"is_bomb_planted", "m_pGameRules.m_bBombPlanted", NULL, TG_RULES, SP_PLAIN},
    {"round_win_status", "m_pGameRules.m_iRoundWinStatus", NULL, TG_RULES, SP_PLAIN},
    {"round_win_reason", "m_pGameRules.m_eRoundWinReason", NULL, TG_RULES, SP_PLAIN},
    {"round_start_count", "m_pGameRules.m_nRoundStartCount", NULL, TG_RULES, SP_PLAIN},
    {"round_end_count", "m_pGameRules.m_nRoundEndCount", NULL, TG_RULES, SP_PLAIN},
    {"match_end_count", "m_pGameRules.m_nMatchEndCount", NULL, TG_RULES, SP_PLAIN},
    {"terrorist_cant_buy", "m_pGameRules.m_bTCantBuy", NULL, TG_RULES, SP_PLAIN},
    {"ct_cant_buy", "m_pGameRules.m_bCTCantBuy", NULL, TG_RULES, SP_PLAIN},
    {"ct_losing_streak", "m_pGameRules.m_iNumConsecutiveCTLoses", NULL, TG_RULES, SP_PLAIN},
    {"t_losing_streak", "m_pGameRules.m_iNumConsecutiveTerroristLoses", NULL, TG_RULES, SP_PLAIN},
    {"survival_start_time", "m_pGameRules.m_flSurvivalStartTime", NULL, TG_RULES, SP_PLAIN},
    {"round_in_progress", "m_pGameRules.m_bRoundInProgress", NULL, TG_RULES, SP_PLAIN},
    {"i_bomb_site?", "m_pGameRules.m_iBombSite", NULL, TG_RULES, SP_PLAIN},
};

static const struct alias *find_alias(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, name) == 0)
            return &aliases[i];
    return NULL;
}

const char *zdem_s2_ticks_alias(const char *name)
{
    const struct alias *a = find_alias(name);
    return a ? a->target_name : NULL;
}

int zdem_s2_ticks_alias_at(uint32_t i, const char **name, const char **target)
{
    if (i >= sizeof aliases / sizeof aliases[0])
        return 0;
    if (name)
        *name = aliases[i].name;
    if (target)
        *target = aliases[i].target_name;
    return 1;
}

const char *zdem_s2_ticks_alias_kind(uint32_t i)
{
    static const char *const kinds[] = {"entity", "pawn", "controller", "pawn or controller",
                                        "rules", "team", "weapon"};
    if (i >= sizeof aliases / sizeof aliases[0])
        return NULL;
    if (aliases[i].special == SP_INVENTORY)
        return "pawn (weapons)";
    return kinds[aliases[i].target];
}

static size_t ticks_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static uint32_t track_cap(const zdem_s2_ticks_config *c)
{
    return c->max_rows_per_tick ? c->max_rows_per_tick : 1024u;
}

size_t zdem_s2_ticks_size(const zdem_s2_ticks_config *c)
{
    return ticks_up8(sizeof(zdem_s2_ticks)) + ticks_up8(sizeof(tprop) * (size_t)c->nprops) +
           ticks_up8(sizeof(int32_t) * (size_t)track_cap(c));
}

static zdem_status ref_set(tref *r, const char *name, size_t len, uint8_t target, zdem_error *err)
{
    if (len > ZDEM_S2_TICKS_NAME_MAX)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: property name too long");
    memcpy(r->name, name, len);
    r->name[len] = 0;
    r->len = (uint32_t)len;
    r->target = target;
    r->cls[0] = r->cls[1] = -1;
    r->ok[0] = r->ok[1] = 0;
    return ZDEM_OK;
}

/* The first component as a class prefix: "CCSPlayerPawn.m_iHealth" reads
 * the pawn; in class mode the class's own name is dropped. */
static uint8_t strip_prefix(const zdem_s2_ticks *t, const char **name, size_t *len)
{
    const char *dot = memchr(*name, '.', *len);
    size_t pl;
    if (!dot)
        return t->class_name ? TG_SELF : TG_ANY;
    pl = (size_t)(dot - *name);
    if (t->class_name) {
        if (pl == t->class_len && memcmp(*name, t->class_name, pl) == 0) {
            *len -= pl + 1u;
            *name = dot + 1;
        }
        return TG_SELF;
    }
    if (pl >= 4 && memcmp(dot - 4, "Pawn", 4) == 0 && (*name)[0] == 'C') {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_PAWN;
    }
    if (pl >= 10 && memcmp(dot - 10, "Controller", 10) == 0 && (*name)[0] == 'C') {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_CTRL;
    }
    /* CCSGameRulesProxy., CDOTAGamerulesProxy.: the rules entity */
    if (pl >= 14 && (*name)[0] == 'C' && (memcmp(dot - 14, "GameRulesProxy", 14) == 0 ||
                                          memcmp(dot - 14, "GamerulesProxy", 14) == 0)) {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_RULES;
    }
    /* CCSTeam., CCitadelTeam.: the player's team entity */
    if (pl >= 5 && pl <= 16 && (*name)[0] == 'C' && memcmp(dot - 4, "Team", 4) == 0) {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_TEAM;
    }
    return TG_ANY;
}

zdem_status zdem_s2_ticks_init(zdem_s2_ticks **out, void *mem, size_t size,
                               const zdem_s2_ticks_config *c, zdem_table *table,
                               zdem_s2_config *cfg, zdem_error *err);

static zdem_status ticks_on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                             unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged);
static zdem_status ticks_on_tick(void *user, zdem_s2_state *s, int32_t tick);

zdem_status zdem_s2_ticks_init(zdem_s2_ticks **out, void *mem, size_t size,
                               const zdem_s2_ticks_config *c, zdem_table *table,
                               zdem_s2_config *cfg, zdem_error *err)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)mem;
    uint8_t *p = (uint8_t *)mem;
    uint32_t i;
    zdem_status st;
    static const char *const handles[4] = {"m_hPlayerPawn", "m_hHeroPawn", "m_hPawn", "m_hAssignedHero"};
    static const struct {
        size_t off;
        const char *name;
        uint8_t target;
    } helpers[] = {
        {offsetof(zdem_s2_ticks, team_ref), "m_iTeamNum", TG_ANY},
        {offsetof(zdem_s2_ticks, weapon_ref), "m_pWeaponServices.m_hActiveWeapon", TG_PAWN},
        {offsetof(zdem_s2_ticks, life_ref), "m_lifeState", TG_PAWN},
        {offsetof(zdem_s2_ticks, weapons_ref), "m_pWeaponServices.m_hMyWeapons", TG_PAWN},
        {offsetof(zdem_s2_ticks, ammo_ref), "m_pWeaponServices.m_iAmmo.14", TG_PAWN},
        {offsetof(zdem_s2_ticks, def_ref), "m_iItemDefinitionIndex", TG_SELF},
        {offsetof(zdem_s2_ticks, owner_ref), "m_hOwnerEntity", TG_SELF},
    };
    *out = NULL;
    if (!mem || ((uintptr_t)mem & 7u) || size < zdem_s2_ticks_size(c))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "ticks: memory smaller than zdem_s2_ticks_size()");
    if (c->nprops > ZDEM_S2_TICKS_MAX_PROPS)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: more than ZDEM_S2_TICKS_MAX_PROPS (16383) properties");
    for (i = 1; c->ticks && i < c->nticks; i++)
        if (c->ticks[i] <= c->ticks[i - 1])
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: the tick list must be ascending");
    memset(t, 0, sizeof *t);
    p += ticks_up8(sizeof(zdem_s2_ticks));
    t->props = (tprop *)(void *)p;
    p += ticks_up8(sizeof(tprop) * (size_t)c->nprops);
    t->ents = (int32_t *)(void *)p;
    t->cap = track_cap(c);
    t->table = table;
    t->class_name = c->class_name;
    t->class_len = c->class_name ? strlen(c->class_name) : 0;
    t->ticks = c->ticks;
    t->nticks = c->ticks ? c->nticks : 0;
    t->every = c->every;
    t->last_tick = -1;
    t->nprops = c->nprops;
    zdem_s2_roster_init(&t->roster);
    for (i = 0; i < 4; i++)
        if ((st = ref_set(&t->pawn_handle[i], handles[i], strlen(handles[i]), TG_CTRL, err)) != ZDEM_OK)
            return st;
    for (i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
        if ((st = ref_set((tref *)(void *)((uint8_t *)t + helpers[i].off), helpers[i].name,
                          strlen(helpers[i].name), helpers[i].target, err)) != ZDEM_OK)
            return st;
    for (i = 0; i < c->nprops; i++) {
        tprop *pr = &t->props[i];
        const char *name = c->props[i];
        size_t len = strlen(name);
        const struct alias *a = find_alias(name);
        unsigned k;
        memset(pr, 0, sizeof *pr);
        if (len > ZDEM_S2_TICKS_NAME_MAX)
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: property name too long");
        memcpy(pr->col_name, name, len);
        pr->col = NOT_YET;
        for (k = 0; k < MAX_COMP; k++)
            pr->comp_col[k] = NOT_YET;
        if (a) {
            uint8_t tg = t->class_name ? TG_SELF : a->target;
            pr->special = a->special;
            pr->alias = 1;
            if ((st = ref_set(&pr->a, a->target_name, strlen(a->target_name), tg, err)) != ZDEM_OK)
                return st;
            if (a->offset_name &&
                (st = ref_set(&pr->b, a->offset_name, strlen(a->offset_name), tg, err)) != ZDEM_OK)
                return st;
        } else {
            uint8_t tg = strip_prefix(t, &name, &len);
            if ((st = ref_set(&pr->a, name, len, tg, err)) != ZDEM_OK)
                return st;
        }
    }
    if (cfg) {
        cfg->user = t;
        cfg->on_entity = ticks_on_entity;
        cfg->on_tick = ticks_on_tick;
    }
    *out = t;
    return ZDEM_OK;
}

uint64_t zdem_s2_ticks_untracked(const zdem_s2_ticks *t)
{
    return t->untracked;
}

const char *zdem_s2_ticks_error(const zdem_s2_ticks *t)
{
    return t->bad;
}

/* ---- the names, checked once the classes are known ------------------------- */

static int ticks_ends_with(const char *s, uint32_t n, const char *suffix)
{
    size_t l = strlen(suffix);
    return n >= l && memcmp(s + n - l, suffix, l) == 0;
}

/* Which player rows may read a class: 1 controller, 2 pawn (what a
 * controller's pawn handle points at: CS2 and Deadlock pawns, Dota's
 * heroes), 0 neither. */
int zdem_s2_ticks_player_class(const zdem_s2_state *s, int32_t cls)
{
    uint32_t n = 0;
    const char *name = zdem_s2_class_name(s, cls, &n);
    if (!name)
        return 0;
    if (ticks_ends_with(name, n, "PlayerController"))
        return 1;
    if (ticks_ends_with(name, n, "Pawn") || (n > 16 && memcmp(name, "CDOTA_Unit_Hero_", 16) == 0))
        return 2;
    return 0;
}

static int role_reads(uint8_t target, int role)
{
    return role && (target == TG_ANY || (target == TG_CTRL) == (role == 1));
}

/* 1 when r's name is a property of a class the rows read it from. */
static int name_ok(const zdem_s2_ticks *t, const zdem_s2_state *s, int32_t self, const tref *r)
{
    zdem_s2_fp fp;
    uint32_t c, lim = zdem_s2_class_id_limit(s);
    int any_role = 0;
    if (t->class_name)
        return zdem_s2_class_prop_fp(s, self, r->name, &fp);
    for (c = 0; c < lim; c++) {
        int role = zdem_s2_ticks_player_class(s, (int32_t)c);
        any_role |= role;
        if (role_reads(r->target, role) && zdem_s2_class_prop_fp(s, (int32_t)c, r->name, &fp))
            return 1;
    }
    if (any_role)
        return 0;
    /* a game whose players this does not know: any class will do */
    for (c = 0; c < lim; c++)
        if (zdem_s2_class_prop_fp(s, (int32_t)c, r->name, &fp))
            return 1;
    return 0;
}

static int offer_name(void *user, const char *name, size_t len, const char *type, size_t tl)
{
    zdem_near *nr = (zdem_near *)user;
    (void)type;
    (void)tl;
    zdem_near_offer(nr, name, len);
    return nr->offers >= ZDEM_NEAR_MAX_OFFERS; /* enough looked at: stop the walk */
}

static void msg_append(zdem_s2_ticks *t, const char *a, const char *b, size_t bl)
{
    size_t l = strlen(t->msg), al = strlen(a);
    if (l + al + bl + 2u >= sizeof t->msg)
        return;
    memcpy(t->msg + l, a, al);
    memcpy(t->msg + l + al, b, bl);
    t->msg[l + al + bl] = ')';
    t->msg[l + al + bl + 1u] = 0;
}

/* The message for an unknown property: the closest names of the classes
 * the rows read (at most 16 of each kind: Dota's heroes share theirs),
 * then the class that has it, when one does. */
static void bad_name(zdem_s2_ticks *t, const zdem_s2_state *s, int32_t self, const tprop *p)
{
    zdem_near nr;
    const char *fn;
    uint32_t i, c, lim = zdem_s2_class_id_limit(s), seen[3] = {0, 0, 0};
    zdem_s2_fp fp;
    zdem_near_init(&nr, p->col_name, strlen(p->col_name));
    for (i = 0; zdem_s2_ticks_alias_at(i, &fn, NULL); i++)
        zdem_near_offer(&nr, fn, strlen(fn));
    if (t->class_name)
        zdem_s2_class_prop_names(s, self, offer_name, &nr);
    else
        for (c = 0; c < lim; c++) {
            int role = zdem_s2_ticks_player_class(s, (int32_t)c);
            if (role_reads(p->a.target, role) && seen[role]++ < 16u)
                zdem_s2_class_prop_names(s, (int32_t)c, offer_name, &nr);
        }
    zdem_near_message(&nr, "property", t->msg, sizeof t->msg);
    for (c = 0; c < lim; c++) {
        uint32_t n = 0;
        const char *cn = zdem_s2_class_name(s, (int32_t)c, &n);
        if (cn && (int32_t)c != self && zdem_s2_class_prop_fp(s, (int32_t)c, p->a.name, &fp)) {
            msg_append(t, t->class_name ? " (a property of " : " (not of the players; a property of ", cn, n);
            break;
        }
    }
}

/* Once the classes are known (before any entity, so before any row):
 * every name must be there. ZDEM_ERR_ABORTED stops the run; t->bad says
 * why. */
static zdem_status ticks_check(zdem_s2_ticks *t, const zdem_s2_state *s)
{
    int32_t self = -1;
    uint32_t i;
    if (zdem_s2_class_count(s) == 0 || zdem_s2_serializer_count(s) == 0)
        return ZDEM_OK; /* not yet */
    t->checked = 1;
    if (t->class_name && (self = zdem_s2_class_find(s, t->class_name, t->class_len)) < 0) {
        zdem_s2_class_message(s, t->class_name, t->msg, sizeof t->msg);
        t->bad = t->msg;
        return ZDEM_ERR_ABORTED;
    }
    for (i = 0; i < t->nprops; i++) {
        const tprop *p = &t->props[i];
        if (p->alias || name_ok(t, s, self, &p->a))
            continue;
        bad_name(t, s, self, p);
        t->bad = t->msg;
        return ZDEM_ERR_ABORTED;
    }
    return ZDEM_OK;
}

zdem_status zdem_s2_ticks_check(zdem_s2_ticks *t, const zdem_s2_state *s)
{
    return t->checked ? ZDEM_OK : ticks_check(t, s);
}

/* ---- the tracked entities ---------------------------------------------------- */

static uint32_t ent_pos(const zdem_s2_ticks *t, int32_t idx)
{
    uint32_t lo = 0, hi = t->nents;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (t->ents[mid] < idx)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

static void ent_add(zdem_s2_ticks *t, int32_t idx)
{
    uint32_t at = ent_pos(t, idx);
    if (at < t->nents && t->ents[at] == idx)
        return;
    if (t->nents >= t->cap) {
        t->untracked++;
        return;
    }
    memmove(t->ents + at + 1, t->ents + at, sizeof(int32_t) * (t->nents - at));
    t->ents[at] = idx;
    t->nents++;
}

static void ent_del(zdem_s2_ticks *t, int32_t idx)
{
    uint32_t at = ent_pos(t, idx);
    if (at < t->nents && t->ents[at] == idx) {
        memmove(t->ents + at, t->ents + at + 1, sizeof(int32_t) * (t->nents - at - 1u));
        t->nents--;
    }
}

static int wanted_class(const zdem_s2_ticks *t, const zdem_s2_entity *e)
{
    static const char suffix[] = "PlayerController";
    size_t sl = sizeof suffix - 1u;
    if (!e->class_name)
        return 0;
    if (t->class_name)
        return e->class_name_len == t->class_len &&
               memcmp(e->class_name, t->class_name, t->class_len) == 0;
    return e->class_name_len >= sl &&
           memcmp(e->class_name + e->class_name_len - sl, suffix, sl) == 0;
}

static zdem_status ticks_on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                             unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)user;
    zdem_status st;
    (void)changed;
    (void)nchanged;
    if (!t->checked && (st = ticks_check(t, s)) != ZDEM_OK)
        return st;
    zdem_s2_roster_entity(&t->roster, e, ops);
    if (ops & ZDEM_S2_ENT_DELETED)
        ent_del(t, e->index);
    else if (ops & ZDEM_S2_ENT_CREATED) {
        if (wanted_class(t, e))
            ent_add(t, e->index);
        else /* the index was reused by another class */
            ent_del(t, e->index);
    }
    return ZDEM_OK;
}

/* ---- reading values ------------------------------------------------------------ */

/* r's value on entity idx (class cls), through slot's cache. A name
 * ending in ".N" is an array element or component N of a vector: both
 * paths are kept (ok == 2) until an entity has a value at one of them. */
static int ref_get(const zdem_s2_state *s, tref *r, int slot, int32_t idx, int32_t cls,
                   zdem_s2_value *v)
{
    if (r->cls[slot] != cls) {
        char *dot = strrchr(r->name, '.');
        r->cls[slot] = cls;
        r->comp[slot] = -1;
        r->ok[slot] = (int8_t)zdem_s2_class_prop_fp(s, cls, r->name, &r->fp[slot]);
        if (dot && dot[1] >= '0' && dot[1] <= '3' && dot[2] == 0) {
            int vec;
            *dot = 0;
            vec = zdem_s2_class_prop_fp(s, cls, r->name, &r->vec_fp[slot]);
            *dot = '.';
            if (vec) {
                r->comp[slot] = (int8_t)(dot[1] - '0');
                r->ok[slot] = r->ok[slot] ? 2 : 3; /* 3: only the vector */
            }
        }
    }
    if (!r->ok[slot])
        return 0;
    if (r->ok[slot] != 3 && zdem_s2_entity_prop_fp(s, idx, &r->fp[slot], v)) {
        if (r->ok[slot] == 2) /* an element: the name is a plain path */
            r->ok[slot] = 1;
        return 1;
    }
    if (r->ok[slot] == 1 || !zdem_s2_entity_prop_fp(s, idx, &r->vec_fp[slot], v))
        return 0;
    if (v->kind != ZDEM_S2_V_VEC || (unsigned)r->comp[slot] >= v->n)
        return 0;
    r->ok[slot] = 3;
    v->kind = ZDEM_S2_V_FLOAT;
    v->v.f[0] = v->v.f[(unsigned)r->comp[slot]];
    return 1;
}

static int32_t class_of(const zdem_s2_state *s, int32_t idx)
{
    return zdem_s2_entity_class(s, idx);
}

/* The entities a row reads: the entity (or pawn) and the controller, with
 * their classes; team >= 0 names the team whose entity team names read
 * (the events' t_ and ct_ columns), else the player's. */
typedef struct rowctx {
    int32_t ent, ent_cls, ctrl, ctrl_cls;
    int64_t team;
} rowctx;

static int ref_int(const zdem_s2_state *s, tref *r, int slot, int32_t idx, int32_t cls, int64_t *out)
{
    zdem_s2_value v;
    if (idx < 0 || !ref_get(s, r, slot, idx, cls, &v))
        return 0;
    if (v.kind == ZDEM_S2_V_INT)
        *out = v.v.i;
    else if (v.kind == ZDEM_S2_V_UINT || v.kind == ZDEM_S2_V_BOOL)
        *out = (int64_t)v.v.u;
    else
        return 0;
    return 1;
}

/* The live entity a handle names (14-bit index), or -1. */
static int32_t ticks_handle(const zdem_s2_state *s, int64_t h, int32_t *cls)
{
    int32_t idx;
    if (h < 0 || ((uint64_t)h & 0xFFFFFFu) == 0xFFFFFFu)
        return -1;
    idx = (int32_t)((uint64_t)h & 0x3FFFu);
    return (*cls = class_of(s, idx)) >= 0 ? idx : -1;
}

/* The value of r for the row (pawn / controller / entity / rules / team
 * / active weapon). */
static int row_get(zdem_s2_ticks *t, const zdem_s2_state *s, tref *r, const rowctx *rc,
                   zdem_s2_value *v)
{
    int32_t e, cls = -1;
    int64_t x;
    switch (r->target) {
    case TG_SELF:
    case TG_PAWN:
        return ref_get(s, r, 0, rc->ent, rc->ent_cls, v);
    case TG_CTRL:
        return ref_get(s, r, 1, rc->ctrl, rc->ctrl_cls, v);
    case TG_RULES:
        e = zdem_s2_roster_rules(&t->roster);
        return e >= 0 && ref_get(s, r, 0, e, class_of(s, e), v);
    case TG_TEAM:
        x = rc->team;
        if (x < 0 && !ref_int(s, &t->team_ref, 0, rc->ent, rc->ent_cls, &x) &&
            !ref_int(s, &t->team_ref, 1, rc->ctrl, rc->ctrl_cls, &x))
            return 0;
        e = zdem_s2_roster_team(&t->roster, s, x);
        return e >= 0 && ref_get(s, r, 0, e, class_of(s, e), v);
    case TG_WEAPON:
        if (!ref_int(s, &t->weapon_ref, 0, rc->ent, rc->ent_cls, &x) ||
            (e = ticks_handle(s, x, &cls)) < 0)
            return 0;
        return ref_get(s, r, 0, e, cls, v);
    default:
        return ref_get(s, r, 0, rc->ent, rc->ent_cls, v) || ref_get(s, r, 1, rc->ctrl, rc->ctrl_cls, v);
    }
}

static void inv_add(zdem_s2_ticks *t, size_t *n, const char *name)
{
    size_t l = strlen(name);
    if (*n + l + 2u > sizeof t->inv)
        return; /* 512 bytes hold far more than a player carries */
    if (*n)
        t->inv[(*n)++] = ',';
    memcpy(t->inv + *n, name, l);
    *n += l;
    t->inv[*n] = 0;
}

/* demoparser2's inventory: the names of the pawn's weapons (each entity
 * once), none while dead; a flashbang twice when it holds two, the C4 only
 * for its owner. Joined by "," (no item name has one). */
static int inventory(zdem_s2_ticks *t, const zdem_s2_state *s, const rowctx *rc, zdem_s2_value *v)
{
    int64_t life, count, h, ammo;
    int32_t seen[64];
    uint32_t nseen = 0, k, j;
    size_t n = 0;
    zdem_s2_value cv;
    t->inv[0] = 0;
    v->kind = ZDEM_S2_V_STRING;
    v->s = (const uint8_t *)t->inv;
    v->len = 0;
    if (!ref_int(s, &t->life_ref, 0, rc->ent, rc->ent_cls, &life) || life != 0)
        return 1; /* dead: an empty list */
    if (!ref_get(s, &t->weapons_ref, 0, rc->ent, rc->ent_cls, &cv) ||
        (cv.kind != ZDEM_S2_V_UINT && cv.kind != ZDEM_S2_V_INT))
        return 0;
    count = cv.kind == ZDEM_S2_V_INT ? cv.v.i : (int64_t)(cv.v.u > 64 ? 64 : cv.v.u);
    if (count > 64)
        count = 64;
    for (k = 0; k < (uint32_t)(count > 0 ? count : 0); k++) {
        zdem_s2_fp fp = t->weapons_ref.fp[0];
        int32_t w, wcls = -1;
        int64_t def;
        const char *name;
        if (fp.depth >= ZDEM_S2_FP_MAX_DEPTH)
            break;
        fp.path[fp.depth++] = (uint16_t)k;
        if (!zdem_s2_entity_prop_fp(s, rc->ent, &fp, &cv) ||
            (cv.kind != ZDEM_S2_V_UINT && cv.kind != ZDEM_S2_V_INT))
            continue;
        h = cv.kind == ZDEM_S2_V_INT ? cv.v.i : (int64_t)(cv.v.u & 0x7FFFFFFFFFFFFFFFull);
        w = (int32_t)((uint64_t)h & 0x3FFFu);
        for (j = 0; j < nseen && seen[j] != w; j++)
            ;
        if (j < nseen)
            continue;
        seen[nseen++] = w;
        if ((wcls = class_of(s, w)) < 0 || !ref_int(s, &t->def_ref, 0, w, wcls, &def) ||
            !(name = zdem_s2_item_name((uint64_t)def)))
            continue;
        if (def == 43) { /* flashbangs: the pawn's ammo slot 14 counts them */
            if (ref_int(s, &t->ammo_ref, 0, rc->ent, rc->ent_cls, &ammo) && ammo == 2)
                inv_add(t, &n, name);
        } else if (def == 49) { /* the C4: only its owner carries it */
            int32_t c4 = zdem_s2_roster_c4(&t->roster);
            int64_t owner;
            if (c4 < 0 || !ref_int(s, &t->owner_ref, 0, c4, class_of(s, c4), &owner) ||
                (owner & 0x3FFF) != rc->ent)
                continue;
        }
        inv_add(t, &n, name);
    }
    v->len = (uint32_t)n;
    return 1;
}

/* Property p's value for the row: 1 and *v when it has one. */
static int prop_value(zdem_s2_ticks *t, const zdem_s2_state *s, tprop *p, const rowctx *rc,
                      zdem_s2_value *v)
{
    zdem_s2_value off;
    const char *name;
    if (p->special == SP_INVENTORY)
        return inventory(t, s, rc, v);
    if (!row_get(t, s, &p->a, rc, v))
        return 0;
    if (p->special == SP_COORD) {
        /* demoparser2's arithmetic, in float: cell * 2^9 - 2^14 + offset */
        float cell, o;
        if (!row_get(t, s, &p->b, rc, &off) || off.kind != ZDEM_S2_V_FLOAT ||
            (v->kind != ZDEM_S2_V_UINT && v->kind != ZDEM_S2_V_INT))
            return 0;
        cell = v->kind == ZDEM_S2_V_UINT ? (float)v->v.u : (float)v->v.i;
        o = off.v.f[0];
        v->kind = ZDEM_S2_V_FLOAT;
        v->v.f[0] = (cell * 512.0f - 16384.0f) + o;
    } else if (p->special == SP_ITEM_NAME) {
        if ((v->kind != ZDEM_S2_V_UINT && v->kind != ZDEM_S2_V_INT) || v->v.i < 0 ||
            !(name = zdem_s2_item_name(v->v.u)))
            return 0;
        v->kind = ZDEM_S2_V_STRING;
        v->s = (const uint8_t *)name;
        v->len = (uint32_t)strlen(name);
    }
    return 1;
}

static void put(zdem_table *tb, int32_t col, const zdem_s2_value *v)
{
    switch (v->kind) {
    case ZDEM_S2_V_BOOL: zdem_table_bool(tb, col, v->v.u != 0); break;
    case ZDEM_S2_V_UINT: zdem_table_uint(tb, col, v->v.u); break;
    case ZDEM_S2_V_INT: zdem_table_int(tb, col, v->v.i); break;
    case ZDEM_S2_V_FLOAT: zdem_table_float(tb, col, (double)v->v.f[0]); break;
    case ZDEM_S2_V_DOUBLE: zdem_table_float(tb, col, v->v.d); break;
    case ZDEM_S2_V_STRING: zdem_table_str(tb, col, v->s, v->len); break;
    default: break;
    }
}

static int32_t column(zdem_table *tb, const char *name, size_t len, int comp)
{
    char buf[ZDEM_S2_TICKS_NAME_MAX + 3];
    if (comp < 0)
        return zdem_table_column(tb, name, len);
    memcpy(buf, name, len);
    buf[len] = '.';
    buf[len + 1] = (char)('0' + comp);
    return zdem_table_column(tb, buf, len + 2u);
}

static void emit_prop(zdem_s2_ticks *t, const zdem_s2_state *s, tprop *p, const rowctx *rc)
{
    zdem_s2_value v;
    size_t nl = strlen(p->col_name);
    int have = prop_value(t, s, p, rc, &v);
    if (p->col == NOT_YET) /* the first row fixes the columns' order */
        p->col = have && v.kind == ZDEM_S2_V_VEC ? -1 : zdem_table_column(t->table, p->col_name, nl);
    if (!have)
        return;
    if (v.kind == ZDEM_S2_V_VEC) {
        unsigned k;
        for (k = 0; k < v.n && k < MAX_COMP; k++) {
            if (p->comp_col[k] == NOT_YET)
                p->comp_col[k] = column(t->table, p->col_name, nl, (int)k);
            zdem_table_float(t->table, p->comp_col[k], (double)v.v.f[k]);
        }
        return;
    }
    put(t->table, p->col, &v);
}

static int ticks_wanted(zdem_s2_ticks *t, int32_t tick)
{
    if (t->every > 1u && (uint32_t)tick % t->every != 0)
        return 0;
    if (t->ticks) {
        while (t->tick_at < t->nticks && t->ticks[t->tick_at] < tick)
            t->tick_at++;
        return t->tick_at < t->nticks && t->ticks[t->tick_at] == tick;
    }
    return 1;
}

static zdem_status ticks_on_tick(void *user, zdem_s2_state *s, int32_t tick)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)user;
    uint32_t i, k;
    zdem_status st;
    rowctx rc;
    if (!t->checked && (st = ticks_check(t, s)) != ZDEM_OK)
        return st;
    if (tick < 0 || (int64_t)tick <= t->last_tick)
        return ZDEM_OK;
    t->last_tick = tick;
    if (!ticks_wanted(t, tick))
        return ZDEM_OK;
    for (i = 0; i < t->nents; i++) {
        int32_t ent = t->ents[i], ctrl = -1, ctrl_cls = -1, ent_cls;
        if (!t->class_name) { /* a player: the controller's pawn */
            zdem_s2_value h;
            ctrl = ent;
            ctrl_cls = class_of(s, ctrl);
            ent = -1;
            for (k = 0; k < 4 && ent < 0; k++)
                if (ref_get(s, &t->pawn_handle[k], 1, ctrl, ctrl_cls, &h) &&
                    (h.kind == ZDEM_S2_V_UINT || h.kind == ZDEM_S2_V_INT) && (h.v.u & 0xFFFFFFu) != 0xFFFFFFu)
                    ent = (int32_t)(h.v.u & 0x3FFFu); /* CS2 handles: 14-bit index */
            if (ent < 0)
                continue;
        }
        if ((ent_cls = class_of(s, ent)) < 0)
            continue;
        if ((st = zdem_table_row(t->table)) != ZDEM_OK)
            return st;
        if (t->col_tick == 0 && t->col_ent == 0 && zdem_table_ncols(t->table) == 0) {
            t->col_tick = zdem_table_column(t->table, "tick", 4);
            t->col_ent = zdem_table_column(t->table, "entity", 6);
        }
        zdem_table_int(t->table, t->col_tick, tick);
        zdem_table_int(t->table, t->col_ent, ent);
        rc.ent = ent;
        rc.ent_cls = ent_cls;
        rc.ctrl = ctrl;
        rc.ctrl_cls = ctrl_cls;
        rc.team = -1;
        for (k = 0; k < t->nprops; k++)
            emit_prop(t, s, &t->props[k], &rc);
    }
    return ZDEM_OK;
}

/* ---- the same properties for other row makers ---------------------------------- */

zdem_s2_roster *zdem_s2_ticks_roster(zdem_s2_ticks *t)
{
    return &t->roster;
}

int zdem_s2_ticks_prop_kind(const zdem_s2_ticks *t, uint32_t k)
{
    if (k >= t->nprops)
        return -1;
    switch (t->props[k].a.target) {
    case TG_RULES: return ZDEM_S2_PROP_RULES;
    case TG_TEAM: return ZDEM_S2_PROP_TEAM;
    default: return ZDEM_S2_PROP_PLAYER;
    }
}

int zdem_s2_ticks_value(zdem_s2_ticks *t, const zdem_s2_state *s, uint32_t k, int32_t pawn,
                        int32_t ctrl, int64_t team, zdem_s2_value *v)
{
    rowctx rc;
    if (k >= t->nprops)
        return 0;
    rc.ent = pawn;
    rc.ent_cls = class_of(s, pawn);
    rc.ctrl = ctrl;
    rc.ctrl_cls = class_of(s, ctrl);
    rc.team = team;
    return prop_value(t, s, &t->props[k], &rc, v);
}
