"""Quake III DataFrames against UberDemoTools (peers/*.q3-ref.json, its
JSON export peers/*.udt-json-raw.json), ioquake3 (peers/*.q3-ioq3ref.json)
and EXPECTED.md B3.

UberDemoTools' player names (its players and obituaries lists) drop what
it takes for a clan tag: the part up to a last space, dot or similar
(\"w3.gaiia\" -> \"gaiia\", \"c58|PELE [PK]\" -> \"[PK]\", Quake Live dm_91's
\"102RC coolleR\" -> \"coolleR\"); zdem keeps the name the game shows. A
name is compared by that exact relation: theirs is ours, or ours ends
with theirs right after a character that is not a letter or digit."""
import glob
import json
import os

import numpy as np
import pandas as pd
import pytest

import zdem
from conftest import expected_table, read

TEAMS = {"free": 0, "red": 1, "blue": 2, "spectators": 3}


def udt_files(corpus, suffix=".udt-json-raw.json"):
    for ref_path in sorted(glob.glob(os.path.join(corpus, "peers", "*" + suffix))):
        name = os.path.basename(ref_path)[:-len(suffix)]
        if name.startswith("zeq2lite"):
            continue  # a mod without known netfields
        yield name, os.path.join(corpus, "q3", name), json.load(open(ref_path))


def udt_name(ours, theirs):
    if ours == theirs:
        return True
    return ours.endswith(theirs) and (not theirs or not ours[-len(theirs) - 1].isalnum())


def test_obituaries_match_uberdemotools(corpus):
    n = named = 0
    for name, path, ref in udt_files(corpus, ".q3-ref.json"):
        df = read(zdem.q3.obituaries, path)
        assert list(df.columns) == ["server_time", "gamestate", "attacker", "attacker_name", "target",
                                    "target_name", "mod", "mod_name"]
        # UberDemoTools leaves out obituaries whose means of death it cannot
        # name: Quake Live's 31 (lightning discharge) and 33 (railgun
        # headshot) among them, which zdem names
        ql = name.endswith((".dm_73", ".dm_90", ".dm_91"))
        ok = df[(df["mod_name"] != "unknown") & ~(df["mod"].isin([31, 33]) & ql)]
        ours = list(zip(ok["attacker"], ok["target"], ok["mod_name"], ok["server_time"]))
        theirs = [(o["attacker_client"] if o["attacker_client"] is not None else -1, o["target_client"],
                   o["mod"], o["t"]) for o in ref["obituaries"]]
        assert ours == theirs, name
        n += len(theirs)
        # names, without colour codes (the raw export's clean names)
        raw = json.load(open(os.path.join(corpus, "peers", name + ".udt-json-raw.json")))
        for row, o in zip(ok.itertuples(), raw.get("obituaries") or []):
            assert udt_name(row.target_name, o["targetCleanName"]), (name, row.target_name)
            if o.get("attackerCleanName") is not None and row.attacker >= 0:
                assert udt_name(row.attacker_name, o["attackerCleanName"]), (name, row.attacker_name)
            named += 1
    assert n > 500 and named > 500


def test_chat_matches_uberdemotools(corpus):
    n = spoken = 0
    for name, path, ref in udt_files(corpus):
        df = read(zdem.q3.chat, path)
        assert list(df.columns) == ["server_time", "gamestate", "command_seq", "kind", "slot", "name",
                                    "location", "text", "raw"]
        theirs = ref.get("chat") or []
        assert len(df) == len(theirs), name
        for row, c in zip(df.itertuples(), theirs):
            assert (row.server_time, row.gamestate) == (c["serverTime"], c["gameStateNumber"]), name
            assert (row.kind != "chat") == c["teamChat"], name
            # raw: the command's text as sent (what UberDemoTools shows
            # inside the command's quotes, or after mm2's two numbers)
            cmd = c["command"]
            assert cmd.startswith(row.kind + " ") and row.raw in cmd, (name, row.raw)
            if c.get("cleanPlayerName") is None:  # a server's line, no speaker
                continue
            assert udt_name(row.name, c["cleanPlayerName"]), (name, row.name, c["cleanPlayerName"])
            assert row.text == c["cleanMessage"], (name, row.text)
            assert row.location == c.get("cleanLocation"), (name, row.location)
            spoken += 1
        n += len(theirs)
    assert n > 400 and spoken > 400


def test_header_matches_uberdemotools_and_expected(corpus):
    b3 = expected_table("### B3.")
    n = 0
    for name, path, ref in udt_files(corpus, ".q3-ref.json"):
        h = read(zdem.q3.header, path)
        gs = ref["gamestate_list"]
        assert list(h["gamestate"]) == list(range(1, len(gs) + 1)), name
        for row, g in zip(h.itertuples(), gs):
            assert row.map_name == g["mapname"] and row.snapshots == g["snapshots"], name
            assert (row.first_server_time, row.last_server_time) == (g["first_server_time"],
                                                                     g["last_server_time"]), name
            got = None if pd.isna(row.client_num) else int(row.client_num)
            assert got == g["demo_taker_client"], name  # None: dm3 and dm_48 do not say
        exp = b3.get(name, {})
        if exp.get("map"):
            assert h["map_name"].iloc[0] == exp["map"], name
            assert h["gamename"].iloc[0] == exp["gamename/fs_game"].split("/")[0].replace("None", ""), name
            n += 1
        assert (h["protocol"] == ref["protocol"]).all(), name
    assert n >= 38


def test_players_match_uberdemotools(corpus):
    """UberDemoTools keeps one entry per connection with its first name and
    team; zdem starts a row at each name or team change (each command in
    order), so a connection is zdem's rows of a slot that follow each
    other without a gap. Start times: UberDemoTools' when inside the
    gamestate (its later gamestates repeat the first one's start)."""
    checked = times = 0
    for name, path, ref in udt_files(corpus):
        pl = read(zdem.q3.players, path)
        h = read(zdem.q3.header, path)
        assert list(pl.columns) == ["gamestate", "slot", "name", "team", "first_server_time",
                                    "last_server_time", "raw_name"]
        conns, last = [], {}
        for r in pl.itertuples():
            k = (r.gamestate, r.slot)
            if k in last and last[k][-1] == r.first_server_time:
                last[k][-1] = r.last_server_time
                continue
            last[k] = [r.gamestate, r.slot, r.name, r.team, r.first_server_time, r.last_server_time]
            conns.append(last[k])
        ours = sorted(conns, key=lambda c: (c[0], c[1], c[4]))
        theirs = sorted(((g + 1, p["clientNumber"], p["cleanName"], TEAMS[p["team"]], p["startTime"])
                         for g, gs in enumerate(ref["gameStates"]) for p in gs["players"]),
                        key=lambda c: (c[0], c[1]))
        assert [(c[0], c[1]) for c in sorted(ours, key=lambda c: (c[0], c[1]))] == \
            [(c[0], c[1]) for c in theirs], name
        byslot = {}
        for c in ours:
            byslot.setdefault((c[0], c[1]), []).append(c)
        for g, slot, tname, team, start in theirs:
            o = byslot[(g, slot)].pop(0)
            assert udt_name(o[2], tname), (name, o[2], tname)
            assert o[3] == team, (name, slot, o[3], team)
            span = h[h["gamestate"] == g].iloc[0]
            if span["first_server_time"] <= start <= span["last_server_time"]:
                assert o[4] == start, (name, slot, o[4], start)
                times += 1
            checked += 1
    assert checked > 100 and times > 90


def test_scores_and_ticks(corpus):
    path = os.path.join(corpus, "q3", "q3-cpma_udt-3matches-2gamestates.dm_68")
    sc = zdem.q3.scores(path)
    assert sc["score1"].dtype == np.int64 and len(sc) > 0
    # EXPECTED.md A3: the three matches end 15-0, 16-(-2) and 25-15
    ends = set(zip(sc["score1"], sc["score2"]))
    assert {(15, 0), (16, -2), (25, 15)} <= ends
    name = "q3-cpma_udt-duel.dm_68"
    ioq = json.load(open(os.path.join(corpus, "peers", name + ".q3-ioq3ref.json")))
    t = zdem.q3.ticks(os.path.join(corpus, "q3", name), ["origin", "viewangles.1", "stats.0"])
    assert len(t) == ioq["valid_snapshots"]
    assert t["server_time"].iloc[0] == ioq["first_server_time"] and t["server_time"].iloc[-1] == ioq["last_server_time"]
    assert t["origin.0"].dtype == np.float64 and t["stats.0"].dtype == np.int64
    with pytest.raises(ValueError):
        zdem.q3.ticks(os.path.join(corpus, "q3", name), ["nosuchfield"])
    # too many fields is a usage error naming the count and the limit (4096
    # ended in a failed allocation); the library takes exactly the limit
    limit = zdem.q3.lib.ZDEM_Q3_ROWS_MAX_PROPS
    with pytest.raises(ValueError, match=r"too many properties: 4096 \(limit %d\)" % limit):
        zdem.q3.ticks(os.path.join(corpus, "q3", name), ["stats.0"] * 4096)
    assert len(zdem.q3.ticks(os.path.join(corpus, "q3", name), ["stats.0"] * limit,
                             times=[ioq["first_server_time"]])) == 1


def test_truncated_raises_with_rows(corpus):
    path = os.path.join(corpus, "q3", "q3_udt-truncated.dm_68")
    with pytest.raises(zdem.DemoError) as e:
        zdem.q3.chat(path)
    ref = json.load(open(os.path.join(corpus, "peers", "q3_udt-truncated.dm_68.q3-ref.json")))
    assert len(e.value.data) == ref["chat_count"] and e.value.offset > 0
    assert list(e.value.data.columns)[-1] == "raw"  # the damaged file's rows have the same shape
