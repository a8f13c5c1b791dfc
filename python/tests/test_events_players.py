"""Players on Source 2 events (parse_event, parse_events, parse_player_info,
list_game_events) against independent references:

- demoparser2 (npm, run here): parseEvent with player= and other= extras,
  value by value, for every event name its listGameEvents reports, on
  every CS2 corpus demo it reads; listGameEvents; parsePlayerInfo;
- the userinfo string table decoded by tests/s2_userinfo_ref.py
  (tests/s2_stringtables_ref.py's own framing, Snappy and bit reader, the
  CMsgPlayerInfo fields read field by field): the name and SteamID each userid names, on the CS2 demos
  demoparser2 cannot read (14011, 14090, 14150: player_death,
  player_hurt, ...), Deadlock and Dota 2;
- tests/s2_baseline_ref.py (its own entity decoder) for the teams:
  the controller's pawn handle and the pawn's m_iTeamNum, as of the packet
  before the event's (events come before the entities on the wire);
- gem-dota's stored player list (peers/*.s2-gem.json, by player id) for
  Dota 2's chat speaker.
"""
import glob
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

import zdem
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
import s2_userinfo_ref as uiref  # noqa: E402

NODE_PATH = os.environ.get("ZDEM_DP2_NODE_PATH", os.path.join(ROOT, "tests", "node_modules"))
DP2_READS = ["14065-de-nuke", "14132-de-ancient", "14155-de-dust2", "14160-de-dust2"]
DP2_FAILS = ["14011-cs-italy", "14090-cs-italy", "14150-ag2-de-train"]
PLAYER = ["X", "Y", "Z", "pitch", "yaw", "health", "team_num", "balance", "active_weapon_name",
          "kills_total", "last_place_name", "flash_duration", "inventory", "has_helmet",
          "armor_value", "is_alive", "CCSPlayerPawn.m_iHealth"]
OTHER = ["total_rounds_played", "is_freeze_period", "is_warmup_period", "game_phase",
         "round_start_time", "round_win_status", "team_rounds_total", "team_name",
         "team_surrendered", "is_bomb_planted"]

DP2_JS = r"""
const dp = require('@laihoe/demoparser2');
const [what, f, a, b, c] = process.argv.slice(1);
let out;
try {
  if (what === 'list') out = dp.listGameEvents(f);
  else if (what === 'players') out = dp.parsePlayerInfo(f);
  else out = dp.parseEvent(f, a, b ? b.split(',') : [], c ? c.split(',') : []);
} catch (e) { out = {error: String(e && e.message ? e.message : e)}; }
process.stdout.write(JSON.stringify(out, (k, v) => typeof v === 'bigint' ? v.toString() : v));
"""


def dp2(*args):
    assert os.path.isdir(os.path.join(NODE_PATH, "@laihoe", "demoparser2")), "run tests/deps.sh"
    p = subprocess.run(["node", "-e", DP2_JS] + list(args), capture_output=True, timeout=300,
                       env=dict(os.environ, NODE_PATH=NODE_PATH))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.decode())


def cs2(corpus, tag):
    return os.path.join(corpus, "source2", "cs2_demofile-net-gotv-%s.dem" % tag)


# ---- demoparser2 ------------------------------------------------------------------

def same(ours, ref, col):
    """One value. Documented relations: demoparser2 gives SteamIDs and the
    enum props as strings of their numbers; its clip decoder gives the
    wire 0 (no clip: knife, C4) as 0 where the value is -1."""
    if ref is None:
        return ours is None
    if isinstance(ref, float) or isinstance(ours, float):
        return ours is not None and abs(float(ours) - float(ref)) <= 1e-3 * max(1.0, abs(float(ref)))
    if isinstance(ref, str) and not isinstance(ours, str) and ours is not None and not isinstance(ours, list):
        return str(ours) == ref
    return ours == ref


def _plain(v):
    if v is pd.NA:
        return None
    if v is None or isinstance(v, list):
        return v
    if isinstance(v, float) and v != v:
        return None
    return v.item() if hasattr(v, "item") else v


def records(df):
    """Rows as dicts of plain values (missing: None)."""
    return [{k: _plain(v) for k, v in rec.items()} for rec in df.to_dict("records")]


@pytest.mark.parametrize("tag", DP2_READS)
def test_parse_event_equals_demoparser2(corpus, tag):
    path = cs2(corpus, tag)
    names = dp2("list", path)
    assert isinstance(names, list) and names, names
    compared = 0
    for name in sorted(names):
        ref = dp2("event", path, name, ",".join(PLAYER), ",".join(OTHER))
        assert not (isinstance(ref, dict) and "error" in ref), (name, ref)
        ours = records(zdem.parse_event(path, name, player=PLAYER, other=OTHER))
        # the same rows in the same order, every column demoparser2 has
        assert len(ours) == len(ref), (name, len(ours), len(ref))
        for i, (o, r) in enumerate(zip(ours, ref)):
            for col, rv in r.items():
                assert col in o, (name, i, col, sorted(o))
                assert same(o[col], rv, col), (name, i, col, o[col], rv)
                compared += 1
    assert compared > 0


@pytest.mark.parametrize("tag", DP2_READS + DP2_FAILS)
def test_list_game_events_equals_demoparser2(corpus, tag):
    # listGameEvents reads all seven (it does not decode entities)
    path = cs2(corpus, tag)
    ref = dp2("list", path)
    assert isinstance(ref, list) and ref
    ours = zdem.list_game_events(path)
    assert len(ours) == len(set(ours))
    assert set(ours) == set(ref)


@pytest.mark.parametrize("tag", DP2_READS)
def test_parse_player_info_and_demoparser2(corpus, tag):
    # demoparser2's parsePlayerInfo reads CCSUsrMsg_EndOfMatchAllPlayersData,
    # which these short recordings do not hold (it returns []): every row it
    # gives must be ours (name, steamid, team_number)
    path = cs2(corpus, tag)
    ref = dp2("players", path)
    assert isinstance(ref, list)
    ours = zdem.parse_player_info(path)
    for r in ref:
        hit = ours[(ours["name"] == r["name"]) & (ours["steamid"].astype(str) == str(r["steamid"]))]
        assert len(hit) == 1 and int(hit["team_number"].iloc[0]) == r["team_number"]


# ---- userinfo (s2_stringtables_ref) ---------------------------------------------------

_UI = {}


def userinfo(path):
    if path not in _UI:
        _UI[path] = uiref.userinfo(path)
    return _UI[path]


slot_of = uiref.slot_of


@pytest.mark.parametrize("tag", DP2_FAILS)
def test_event_players_match_userinfo(corpus, tag):
    """Every player key of every event (userid, attacker, assister): the
    name and SteamID the reference userinfo holds for that userid."""
    path = cs2(corpus, tag)
    ui = userinfo(path)
    ev = zdem.parse_events(path)
    checked = {"user": 0, "attacker": 0, "assister": 0}
    for rec in records(ev):
        for key, role in (("userid", "user"), ("attacker", "attacker"), ("assister", "assister")):
            v = rec.get(key)
            if v is None or rec["type"] != "game_event":
                continue
            slot = slot_of(ui, v)
            if v in (65535, -1) or slot is None:
                assert rec.get(role + "_name") is None, (rec["event_name"], key, v)
                checked[role] += 1
                continue
            assert rec[role + "_name"] == ui[slot]["name"], (rec["tick"], rec["event_name"], key, v)
            want = ui[slot]["xuid"] or None
            got = rec[role + "_steamid"]
            assert (got is None and want is None) or int(got) == want, (rec["event_name"], key, got, want)
            checked[role] += 1
    # these demos hurt and kill: every role was seen
    assert checked["user"] > 10 and checked["attacker"] > 0, checked
    if tag == "14090-cs-italy":
        assert checked["assister"] > 0  # 65535: nobody, name null


def test_event_teams_match_entity_reference(corpus):
    """14011: user_team_num and attacker_team_num are the team of the pawn
    the player's controller points to, as of the packet before the event's,
    from the reference entity decoder."""
    path = cs2(corpus, "14011-cs-italy")
    ref = os.path.join(ROOT, "tests", "s2_baseline_ref.py")

    def values(cls, field):
        p = subprocess.run([sys.executable, ref, "--entities", path, cls, field], capture_output=True,
                           timeout=600)
        assert p.returncode == 0, p.stderr[-300:]
        out = {}
        for line in p.stdout.decode().splitlines()[1:]:
            tick, idx, _, val = line.split("\t")
            out.setdefault(int(idx), []).append((int(tick), int(val)))
        return out

    pawn_of, team_of = values("CCSPlayerController", "m_hPlayerPawn"), values("CCSPlayerPawn", "m_iTeamNum")

    def at(series, tick):
        v = None
        for t, x in series or []:
            if t < tick:
                v = x
        return v

    ui = userinfo(path)
    ev = records(zdem.parse_events(path))
    n = 0
    for rec in ev:
        for key, role in (("userid", "user"), ("attacker", "attacker")):
            v = rec.get(key)
            slot = slot_of(ui, v) if v is not None else None
            if slot is None:
                continue
            h = at(pawn_of.get(slot + 1), rec["tick"])
            want = at(team_of.get(h & 0x3FFF), rec["tick"]) if h is not None else None
            if want is None:
                continue
            assert rec[role + "_team_num"] == want, (rec["tick"], rec["event_name"], role)
            n += 1
    assert n > 20


def test_player_info_matches_userinfo(corpus):
    """Every corpus demo: parse_player_info's slots, userids, names and
    SteamIDs are the reference userinfo's (SourceTV left out), and the
    controller is the entity after the slot."""
    for path in sorted(glob.glob(os.path.join(corpus, "source2", "*.dem"))):
        ui = {s: u for s, u in userinfo(path).items() if not u["hltv"]}
        pi = records(zdem.parse_player_info(path))
        assert list(zdem.parse_player_info(path).columns[:7]) == [
            "slot", "userid", "steamid", "name", "team_number", "controller_entity", "pawn_entity"]
        assert sorted(r["slot"] for r in pi) == sorted(ui), path
        for r in pi:
            u = ui[r["slot"]]
            assert r["userid"] == u["userid"] and r["name"] == u["name"], (path, r, u)
            assert (r["steamid"] or 0) == u["xuid"] and r["is_bot"] == u["bot"], (path, r, u)
            if r["controller_entity"] is not None:
                assert r["controller_entity"] == r["slot"] + 1


def test_player_info_controllers_match_entity_reference(corpus):
    """Deadlock and CS2 14155: each controller's name from the reference
    entity decoder (s2_baseline_ref.py), at its entity index."""
    ref = os.path.join(ROOT, "tests", "s2_baseline_ref.py")
    for path, cls in ((os.path.join(corpus, "source2", "deadlock_demofile-net-hltv-10423-dl-midtown.dem"),
                       "CCitadelPlayerController"), (cs2(corpus, "14155-de-dust2"), "CCSPlayerController")):
        p = subprocess.run([sys.executable, ref, "--entities", path, cls, "m_iszPlayerName"],
                           capture_output=True, timeout=600)
        assert p.returncode == 0, p.stderr[-300:]
        names = {}
        for line in p.stdout.decode().splitlines()[1:]:
            tick, idx, _, val = line.split("\t")
            names[int(idx)] = val.strip("'\"")
        pi = records(zdem.parse_player_info(path))
        assert pi
        for r in pi:
            assert names[r["controller_entity"]] == r["name"], (path, r)


def test_dota_chat_speaker(corpus):
    """Dota 2 chat names its speaker by player id: gem-dota's player list
    (by player id) names them, the reference userinfo gives the SteamID."""
    path = os.path.join(corpus, "source2", "dota2_haste-nekit-pov.dem")
    gem = json.load(open(os.path.join(corpus, "peers", "dota2_haste-nekit-pov.dem.s2-gem.json")))
    players = [p["name"] for p in gem["summary"]["players"]]
    ui = {u["name"]: u for u in userinfo(path).values()}
    chat = records(zdem.parse_events(path, names=["chat"]))
    assert [c["text"] for c in chat] == [c["text"] for c in gem["summary"]["chat"]]
    for c in chat:
        name = players[c["source_player_id"]]
        assert c["source_player_name"] == name
        assert int(c["source_player_steamid"]) == ui[name]["xuid"]
        assert c["source_player_team_num"] in (2, 3)
    ev = records(zdem.parse_event(path, "chat", player=["team_num"]))
    assert [c["source_player_name"] for c in ev] == [c["source_player_name"] for c in chat]


def test_parse_event_shape(corpus):
    """demoparser2's parseEvent columns on a demo it cannot read: the player
    keys folded into the player columns, props per role, other props per
    team; parse_events keeps the keys."""
    path = cs2(corpus, "14090-cs-italy")
    df = zdem.parse_event(path, "player_death", player=["X", "health", "inventory"],
                          other=["total_rounds_played", "team_rounds_total"])
    assert len(df) == 2 and list(df.columns[:2]) == ["tick", "event_name"]
    for col in ("userid", "attacker", "assister", "userid_pawn", "attacker_pawn", "assister_pawn"):
        assert col not in df.columns
    for role in ("user", "attacker", "assister"):
        for p in ("name", "steamid", "team_num", "X", "health", "inventory"):
            assert role + "_" + p in df.columns
    assert {"total_rounds_played", "t_team_rounds_total", "ct_team_rounds_total"} <= set(df.columns)
    assert df["assister_name"].isna().all()  # 65535
    assert all(isinstance(v, list) for v in df["user_inventory"])
    assert df["hitgroup"].map(type).eq(str).all()
    ev = zdem.parse_events(path, names=["player_death"])
    assert list(ev["user_name"]) == list(df["user_name"]) and "userid" in ev.columns


def test_parse_event_reads_inferno_and_decoy_after_their_packet(tmp_path):
    """demoparser2 reads inferno_startburn, decoy_started and inferno_expire
    after the rest of their packet (the entity they name comes with it):
    a crafted demo (tests/s2craft.py) with one in front of a weapon_fire in
    the same packet gives the weapon_fire row first."""
    import s2craft as sc
    el = sc.event_list([(1, "inferno_startburn", [("entityid", "long"), ("x", "float")]),
                        (2, "weapon_fire", [("userid", "short")])])
    d = sc.Scaffold([], [], events=el)
    d.packet([sc.inner("GE_Source1LegacyGameEvent", sc.game_event(1, [("long", 5), ("float", 1.5)])),
              sc.inner("GE_Source1LegacyGameEvent", sc.game_event(2, [("short", 3)]))])
    d.packet([sc.inner("GE_Source1LegacyGameEvent", sc.game_event(2, [("short", 4)]))])
    path = tmp_path / "defer.dem"
    path.write_bytes(d.finish())
    df = zdem.parse_event(str(path), ["inferno_startburn", "weapon_fire"])
    assert list(zip(df["tick"], df["event_name"])) == [(1, "weapon_fire"), (1, "inferno_startburn"),
                                                        (2, "weapon_fire")]
    assert df["x"].iloc[1] == 1.5 and df["user_name"].isna().all()
    # parse_events keeps the wire's order
    ev = zdem.parse_events(str(path), names=["inferno_startburn", "weapon_fire"])
    assert list(ev["event_name"]) == ["inferno_startburn", "weapon_fire", "weapon_fire"]


def test_deadlock_style_roles_on_a_crafted_demo(tmp_path):
    """The roles Deadlock's events use (no corpus demo has them): keys the
    descriptor types as a player slot (9) and as an entity handle (8),
    entindex_* pawns and controllers, 65535. A crafted demo
    (tests/s2craft.py) whose writer knows every player: controllers at
    slot + 1 naming their pawns, pawns owned by their controllers, userinfo
    with userids."""
    import s2craft as sc
    ctrl = sc.Ser("CCitadelPlayerController", [
        sc.Field("m_iszPlayerName", "CUtlString"), sc.Field("m_steamID", "uint64"),
        sc.Field("m_iTeamNum", "uint8"), sc.Field("m_hPawn", "uint32")])
    pawn = sc.Ser("CCitadelPlayerPawn", [sc.Field("m_iTeamNum", "uint8"), sc.Field("m_hOwnerEntity", "uint32")])
    people = [(0, "Alice", 76561198000000001, 2, 100), (1, "Bob", 76561198000000002, 3, 101)]
    ui = sc.create_string_table("userinfo", [
        (slot, str(slot).encode(), sc.pb("CMsgPlayerInfo", name=name, xuid=sid, userid=slot))
        for slot, name, sid, _, _ in people])
    descs = [(1, "player_death", [("userid", 9), ("userid_pawn", 8), ("attacker", 9), ("attacker_pawn", 8),
                                  ("assister1controller", 9)]),
             (2, "player_healed", [("entindex_healer", 3), ("entindex_healed", 3), ("heal_amount", 3)]),
             (3, "player_used_item", [("userid_caster_pawn", 8)]),
             (4, "citadeltv_chase_hero", [("target1playerid", 9), ("target2playerid", 9)])]
    el = sc.pb("CMsgSource1LegacyGameEventList", descriptors=[
        {"eventid": i, "name": n, "keys": [{"type": t, "name": k} for k, t in keys]} for i, n, keys in descs])

    def ev(eid, vals):
        return sc.inner("GE_Source1LegacyGameEvent", sc.pb("CMsgSource1LegacyGameEvent", eventid=eid, keys=[
            {"type": t, ("val_short" if t == 9 else "val_long"): v} for t, v in vals]))
    d = sc.Scaffold([ctrl, pawn], [ctrl.name, pawn.name], tables=[ui], events=el)
    ed = sc.EntityData(d.cbits)
    serial = {1: 700, 2: 701, 100: 800, 101: 801}
    handle = {i: (serial[i] << 14) | i for i in serial}
    for slot, name, sid, team, p in people:
        ed.create(slot + 1, 0, serial[slot + 1], ctrl, {(0,): name, (1,): sid, (2,): team, (3,): handle[p]})
    for slot, name, sid, team, p in people:
        ed.create(p, 1, serial[p], pawn, {(0,): team, (1,): handle[slot + 1]})
    d.packet([sc.inner("svc_PacketEntities", ed.message(is_delta=False, server_tick=1))])
    d.packet([ev(1, [(9, 0), (8, handle[100]), (9, 1), (8, handle[101]), (9, 65535)]),
              ev(2, [(3, 101), (3, 1), (3, 40)]),
              ev(3, [(8, handle[100])]),
              ev(4, [(9, 1), (9, 7)])])
    path = tmp_path / "deadlock_style.dem"
    path.write_bytes(d.finish())
    rows = {r["event_name"]: r for r in records(zdem.parse_events(str(path)))}
    alice, bob = ("Alice", 76561198000000001, 2), ("Bob", 76561198000000002, 3)

    def who(r, role):
        return r[role + "_name"], r[role + "_steamid"], r[role + "_team_num"]
    nobody = (None, None, None)
    assert who(rows["player_death"], "user") == alice and who(rows["player_death"], "attacker") == bob
    assert who(rows["player_death"], "assister1") == nobody   # 65535
    assert who(rows["player_healed"], "healer") == bob          # a pawn, owned by Bob's controller
    assert who(rows["player_healed"], "healed") == alice        # a controller
    assert who(rows["player_used_item"], "userid_caster") == alice  # a pawn handle
    assert who(rows["citadeltv_chase_hero"], "target1") == bob and \
        who(rows["citadeltv_chase_hero"], "target2") == nobody  # slot 7: nobody there
    pi = records(zdem.parse_player_info(str(path)))
    assert [(r["slot"], r["name"], r["steamid"], r["team_number"], r["controller_entity"], r["pawn_entity"])
            for r in pi] == [(0, "Alice", 76561198000000001, 2, 1, 100), (1, "Bob", 76561198000000002, 3, 2, 101)]


def test_dota_combat_log_heroes_on_a_crafted_demo(tmp_path, monkeypatch):
    """The Dota 2 combat log names heroes by unit name
    (npc_dota_hero_doom_bringer): the player whose assigned hero that is
    (the class CDOTA_Unit_Hero_DoomBringer) is attacker_player / target_player;
    creeps name nobody, a hero nobody plays names nobody. A crafted demo
    (tests/s2craft.py) whose writer knows who plays what; no corpus demo
    has combat-log entries."""
    import s2craft as sc
    header = sc.file_header
    monkeypatch.setattr(sc, "file_header", lambda: header(map_name="dota", game_dir="dota", protocol=47,
                                                          build=9358))
    ctrl = sc.Ser("CDOTAPlayerController", [
        sc.Field("m_iszPlayerName", "CUtlString"), sc.Field("m_steamID", "uint64"),
        sc.Field("m_iTeamNum", "uint8"), sc.Field("m_hAssignedHero", "uint32"), sc.Field("m_nPlayerID", "int32")])
    hero = sc.Ser("CDOTA_Unit_Hero_DoomBringer", [sc.Field("m_iTeamNum", "uint8")])
    names = ["npc_dota_hero_doom_bringer", "npc_dota_creep_badguys_melee", "npc_dota_hero_axe"]
    clog = sc.create_string_table("CombatLogNames", [(i, k.encode(), None) for i, k in enumerate(names)])
    ui = sc.create_string_table("userinfo", [
        (0, b"0", sc.pb("CMsgPlayerInfo", name="Radiant1", xuid=76561198000000011, userid=0)),
        (1, b"1", sc.pb("CMsgPlayerInfo", name="Dire1", xuid=76561198000000012, userid=1))])
    d = sc.Scaffold([ctrl, hero], [ctrl.name, hero.name], tables=[ui, clog])
    ed = sc.EntityData(d.cbits)
    ed.create(1, 0, 700, ctrl, {(0,): "Radiant1", (1,): 76561198000000011, (2,): 2, (3,): (900 << 14) | 200,
                                (4,): 0})
    ed.create(2, 0, 701, ctrl, {(0,): "Dire1", (1,): 76561198000000012, (2,): 3, (3,): 0xFFFFFF, (4,): 1})
    ed.create(200, 1, 900, hero, {(0,): 2})
    d.packet([sc.inner("svc_PacketEntities", ed.message(is_delta=False, server_tick=1))])
    entries = [{"type": 0, "attacker_name": 0, "is_attacker_hero": True, "target_name": 1,
                "is_target_hero": False, "value": 50},
               {"type": 4, "attacker_name": 1, "is_attacker_hero": False, "target_name": 2,
                "is_target_hero": True}]
    d.packet([sc.inner("DOTA_UM_CombatLogBulkData", sc.pb("CDOTAUserMsg_CombatLogBulkData",
                                                          combat_entries=entries))])
    path = tmp_path / "dota_combat.dem"
    path.write_bytes(d.finish())
    ev = records(zdem.parse_events(str(path)))
    dmg = [e for e in ev if e["event_name"] == "DAMAGE"]
    death = [e for e in ev if e["event_name"] == "DEATH"]
    assert len(dmg) == 1 and len(death) == 1, [e["event_name"] for e in ev]
    assert dmg[0]["attacker_name"] == "npc_dota_hero_doom_bringer"
    assert (dmg[0]["attacker_player_name"], dmg[0]["attacker_player_steamid"], dmg[0]["attacker_player_team_num"]) \
        == ("Radiant1", 76561198000000011, 2)
    assert dmg[0].get("target_player_name") is None           # a creep
    assert death[0].get("attacker_player_name") is None       # a creep attacks
    assert "target_player_name" in death[0] and death[0]["target_player_name"] is None  # axe: nobody
