#!/usr/bin/env python3
"""The Dota 2 combat log, field by field: builds CMsgDOTACombatLogEntry
messages with Debian's python3-protobuf (from the test's own .proto text,
the published field list, not zdem's schema) that set every field with
values chosen to expose type mistakes (uint32 max, negative int32, floats
that are not round, both bools, names inside and outside the
CombatLogNames table, every combat-log type, repeated assist players),
wraps them in a synthetic Dota 2 demo (tests/s2craft.py framing) as
DOTA_UM_CombatLogDataHLTV (one entry) and DOTA_UM_CombatLogBulkData
(several), and checks `zdem events --json` entry by entry: the event name
(the type's name), the tick, and every key's value.

  s2_combatlog_check.py ZDEM
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import s2craft as sc  # noqa: E402  (framing and string tables only)

# The published message (Dota 2 dota_shared_enums.proto; type is the
# DOTA_COMBATLOG_TYPES enum, int32 on the wire).
FIELDS = [
    ("type", "int32"), ("target_name", "uint32"), ("target_source_name", "uint32"),
    ("attacker_name", "uint32"), ("damage_source_name", "uint32"), ("inflictor_name", "uint32"),
    ("is_attacker_illusion", "bool"), ("is_attacker_hero", "bool"), ("is_target_illusion", "bool"),
    ("is_target_hero", "bool"), ("is_visible_radiant", "bool"), ("is_visible_dire", "bool"),
    ("value", "uint32"), ("health", "int32"), ("timestamp", "float"), ("stun_duration", "float"),
    ("slow_duration", "float"), ("is_ability_toggle_on", "bool"), ("is_ability_toggle_off", "bool"),
    ("ability_level", "uint32"), ("location_x", "float"), ("location_y", "float"),
    ("gold_reason", "uint32"), ("timestamp_raw", "float"), ("modifier_duration", "float"),
    ("xp_reason", "uint32"), ("last_hits", "uint32"), ("attacker_team", "uint32"),
    ("target_team", "uint32"), ("obs_wards_placed", "uint32"), ("assist_player0", "uint32"),
    ("assist_player1", "uint32"), ("assist_player2", "uint32"), ("assist_player3", "uint32"),
    ("stack_count", "uint32"), ("hidden_modifier", "bool"), ("is_target_building", "bool"),
    ("neutral_camp_type", "uint32"), ("rune_type", "uint32"), ("assist_players", "repeated int32"),
    ("is_heal_save", "bool"), ("is_ultimate_ability", "bool"), ("attacker_hero_level", "uint32"),
    ("target_hero_level", "uint32"), ("xpm", "uint32"), ("gpm", "uint32"),
    ("event_location", "uint32"), ("target_is_self", "bool"), ("damage_type", "uint32"),
    ("invisibility_modifier", "bool"), ("damage_category", "uint32"), ("networth", "uint32"),
    ("building_type", "uint32"), ("modifier_elapsed_duration", "float"), ("silence_modifier", "bool"),
    ("heal_from_lifesteal", "bool"), ("modifier_purged", "bool"), ("spell_evaded", "bool"),
    ("motion_controller_modifier", "bool"), ("long_range_kill", "bool"),
    ("modifier_purge_ability", "uint32"), ("modifier_purge_npc", "uint32"), ("root_modifier", "bool"),
    ("total_unit_death_count", "uint32"), ("aura_modifier", "bool"), ("armor_debuff_modifier", "bool"),
    ("no_physical_damage_modifier", "bool"), ("modifier_ability", "uint32"), ("modifier_hidden", "bool"),
    ("inflictor_is_stolen_ability", "bool"), ("kill_eater_event", "uint32"),
    ("unit_status_label", "uint32"), ("spell_generated_attack", "bool"), ("at_night_time", "bool"),
    ("attacker_has_scepter", "bool"), ("neutral_camp_team", "uint32"), ("regenerated_health", "float"),
    ("will_reincarnate", "bool"), ("uses_charges", "bool"),
]
TYPES = ["DAMAGE", "HEAL", "MODIFIER_ADD", "MODIFIER_REMOVE", "DEATH", "ABILITY", "ITEM",
         "LOCATION", "GOLD", "GAME_STATE", "XP", "PURCHASE", "BUYBACK", "ABILITY_TRIGGER",
         "PLAYERSTATS", "MULTIKILL", "KILLSTREAK", "TEAM_BUILDING_KILL", "FIRST_BLOOD",
         "MODIFIER_STACK_EVENT", "NEUTRAL_CAMP_STACK", "PICKUP_RUNE", "REVEALED_INVISIBLE",
         "HERO_SAVED", "MANA_RESTORED", "HERO_LEVELUP", "BOTTLE_HEAL_ALLY", "ENDGAME_STATS",
         "INTERRUPT_CHANNEL", "ALLIED_GOLD", "AEGIS_TAKEN", "MANA_DAMAGE",
         "PHYSICAL_DAMAGE_PREVENTED", "UNIT_SUMMONED", "ATTACK_EVADE", "TREE_CUT",
         "SUCCESSFUL_SCAN", "END_KILLSTREAK", "BLOODSTONE_CHARGE", "CRITICAL_DAMAGE",
         "SPELL_ABSORB", "UNIT_TELEPORTED", "KILL_EATER_EVENT", "NEUTRAL_ITEM_EARNED"]
NAME_FIELDS = {"target_name", "target_source_name", "attacker_name", "damage_source_name",
               "inflictor_name"}
NAMES = [b"npc_dota_hero_axe", b"npc_dota_hero_lina", b"dota_unknown", b"modifier_stunned",
         b"item_blink", "npc_dota_h\u00e9ro".encode("utf-8"), b"lina_laguna_blade"]


def proto_text():
    lines = ['syntax = "proto2";', "message CMsgDOTACombatLogEntry {"]
    for n, (name, t) in enumerate(FIELDS, 1):
        lines.append("  %s %s = %d;" % (t if t.startswith("repeated") else "optional " + t, name, n))
    lines.append("}")
    lines.append("message CDOTAUserMsg_CombatLogBulkData { repeated CMsgDOTACombatLogEntry combat_entries = 1;"
                 " optional float timestamp = 2; optional float duration = 3; optional int32 player_id = 4;"
                 " optional float request_time = 5; }")
    return "\n".join(lines) + "\n"


def load():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "cl.proto"), "w") as f:
        f.write(proto_text())
    subprocess.check_call(["protoc", "--python_out=" + d, "-I" + d, os.path.join(d, "cl.proto")])
    sys.path.insert(0, d)
    import cl_pb2
    return cl_pb2


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def entries():
    """Entries and, for each, the keys zdem must give (in field order)."""
    out = []
    # all fields set, names in the table, the extremes of every type
    full = {}
    for n, (name, t) in enumerate(FIELDS, 1):
        if name == "type":
            full[name] = 4
        elif name in NAME_FIELDS:
            full[name] = n % len(NAMES)
        elif t == "uint32":
            full[name] = [4294967295, 0, 1, 127, 128, 65535, 2 ** 31][n % 7]
        elif t == "int32":
            full[name] = -123456
        elif t == "float":
            full[name] = f32(n * 1.37 - 40.0625)
        elif t == "bool":
            full[name] = n % 2 == 0
        elif t == "repeated int32":
            full[name] = [0, 3, -1, 9, 2147483647, -2147483648]
    out.append(full)
    # every bool the other way, names outside the table (given as numbers),
    # an unknown (negative) type and the largest known one
    other = dict(full)
    for name, t in FIELDS:
        if t == "bool":
            other[name] = not full[name]
        elif name in NAME_FIELDS:
            other[name] = 1000 + len(name)
    other["type"] = -1
    other["assist_players"] = []
    out.append(other)
    # one entry per type, with a single other field
    for ty in range(len(TYPES)):
        out.append({"type": ty, "value": ty * 1000 + 7})
    out.append({"type": len(TYPES)})  # a type newer than the table
    out.append({})                    # nothing set: the default type 0
    return out


def expected(e):
    keys = {}
    for name, t in FIELDS:
        if name not in e:
            continue
        v = e[name]
        if t == "repeated int32":
            for i, x in enumerate(v):
                keys["%s.%d" % (name, i)] = x
        elif name in NAME_FIELDS:
            keys[name] = NAMES[v].decode("utf-8") if v < len(NAMES) else v
        else:
            keys[name] = v
    ty = e.get("type", 0)
    return (TYPES[ty] if 0 <= ty < len(TYPES) else "UNKNOWN"), keys


def build(pb, es):
    d = sc.Demo()
    d.frame("DEM_FileHeader", sc.PREGAME, sc.file_header(map_name="dota", game_dir="dota", protocol=47,
                                                         build=9358))
    d.frame("DEM_SignonPacket", sc.PREGAME, sc.demo_packet([sc.inner("svc_ServerInfo",
                                                                     sc.server_info(1, 1.0 / 30, "dota"))]))
    d.frame("DEM_SignonPacket", sc.PREGAME, sc.demo_packet([sc.inner(
        "svc_CreateStringTable",
        sc.create_string_table("CombatLogNames", [(i, k, None) for i, k in enumerate(NAMES)]))]))
    d.frame("DEM_SyncTick", sc.PREGAME, sc.pb("CDemoSyncTick"))
    want = []
    tick = 10
    i = 0
    while i < len(es):
        msgs = [sc.net_tick(tick)]
        if i % 3 == 0:  # one entry, HLTV form
            m = pb.CMsgDOTACombatLogEntry(**es[i])
            msgs.append(sc.inner("DOTA_UM_CombatLogDataHLTV", m.SerializeToString()))
            want.append((tick, es[i]))
            i += 1
        else:  # a bulk message of up to three
            bulk = pb.CDOTAUserMsg_CombatLogBulkData(timestamp=12.5, duration=0.25, player_id=3)
            for e in es[i:i + 3]:
                bulk.combat_entries.add(**e)
                want.append((tick, e))
            msgs.append(sc.inner("DOTA_UM_CombatLogBulkData", bulk.SerializeToString()))
            i += 3
        d.frame("DEM_Packet", tick, sc.demo_packet(msgs), compress=(tick % 20 == 0))
        tick += 10
    return d.finish() if hasattr(d, "finish") else bytes(d.buf), want


def main():
    zdem = sys.argv[1]
    pb = load()
    es = entries()
    data, want = build(pb, es)
    with tempfile.NamedTemporaryFile(suffix=".dem", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        r = subprocess.run([zdem, "events", "--json", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    finally:
        os.unlink(path)
    got = [json.loads(l) for l in r.stdout.decode("utf-8").splitlines()]
    got = [g for g in got if g.get("type") == "combat_log"]
    bad = []
    if r.returncode != 0:
        bad.append("zdem exit %d: %s" % (r.returncode, r.stderr.decode("utf-8", "replace").strip()))
    if len(got) != len(want):
        bad.append("%d combat-log events, %d written" % (len(got), len(want)))
    values = 0
    for (tick, e), g in zip(want, got):
        name, keys = expected(e)
        if g.get("tick") != tick or g.get("name") != name:
            bad.append("event at tick %s %s: got tick %s name %s" % (tick, name, g.get("tick"), g.get("name")))
        gk = g.get("keys", {})
        if list(gk) != list(keys):
            bad.append("%s@%d: keys %s, want %s" % (name, tick, list(gk), list(keys)))
        for k, v in keys.items():
            values += 1
            x = gk.get(k)
            ok = (f32(x) == f32(v)) if isinstance(v, float) and isinstance(x, (int, float)) else (x == v and type(x) == type(v))
            if not ok:
                bad.append("%s@%d: %s = %r, want %r" % (name, tick, k, x, v))
    fields_set = set(k for _, e in want for k in e)
    missing = [n for n, _ in FIELDS if n not in fields_set]
    if missing:
        bad.append("fields never written: %s" % missing)
    for b in bad[:30]:
        print("FAIL: " + b)
    print("combat log: %d entries (%d fields, every type), %d values checked, %d failures"
          % (len(want), len(FIELDS), values, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
