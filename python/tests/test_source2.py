"""Source 2 DataFrames against independent references: demoparser2 (run
here, npm) for tick rows, its stored outputs (peers/*.cs2-ref.json) and
EXPECTED.md for headers and event names; a damaged file raises DemoError
with the rows read before it."""
import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import zdem
from conftest import ROOT

PROPS = ["X", "Y", "Z", "pitch", "yaw", "health", "team_num", "name", "steamid", "balance", "active_weapon"]
NODE_PATH = os.environ.get("ZDEM_DP2_NODE_PATH", os.path.join(ROOT, "tests", "node_modules"))


def cs2_files(corpus):
    files = sorted(glob.glob(os.path.join(corpus, "source2", "cs2_*.dem")))
    assert len(files) >= 7
    return files


def dp2_ticks(path):
    assert os.path.isdir(os.path.join(NODE_PATH, "@laihoe", "demoparser2")), "run tests/deps.sh"
    p = subprocess.run(["node", os.path.join(ROOT, "tests", "dp2_ticks.js"), path, ",".join(PROPS)],
                       capture_output=True, timeout=300, env=dict(os.environ, NODE_PATH=NODE_PATH))
    assert p.returncode == 0, p.stderr
    rows = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    return None if len(rows) == 1 and "error" in rows[0] else rows


def test_ticks_match_demoparser2(corpus):
    compared = 0
    for path in cs2_files(corpus):
        df = zdem.parse_ticks(path, PROPS)
        assert list(df.columns[:2]) == ["tick", "entity"] and list(df.columns[2:]) == PROPS
        assert df["X"].dtype == np.float64 and df["tick"].dtype == np.int64 and df["steamid"].dtype == np.uint64
        ref = dp2_ticks(path)
        if ref is None:
            continue
        ours = {(rec["tick"], rec["name"]): rec for rec in df.to_dict("records")}
        assert len(ours) == len(df)
        for r in ref:
            o = ours[(r["tick"], r["name"])]
            for k in PROPS:
                if k == "name":
                    continue
                if k == "steamid":
                    assert str(o[k]) == r[k]
                elif isinstance(r[k], float):
                    assert o[k] == pytest.approx(r[k], abs=1e-3), (path, r["tick"], k)
                else:
                    assert o[k] == r[k], (path, r["tick"], k)
        compared += 1
    assert compared >= 4  # demoparser2 0.42 reads 4 of the 7 CS2 files


def test_ticks_selection_and_classes(corpus):
    path = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14065-de-nuke.dem")
    df = zdem.parse_ticks(path, ["health", "m_angEyeAngles"], ticks=[50, 3, 100])
    assert sorted(df["tick"].unique()) == [3, 50, 100]
    assert "m_angEyeAngles.1" in df.columns and "m_angEyeAngles" not in df.columns
    teams = zdem.parse_ticks(path, ["m_szTeamname"], ticks=[10], classes=["CCSTeam"])
    assert sorted(teams["m_szTeamname"]) == ["CT", "Spectator", "TERRORIST", "Unassigned"]


def test_header_matches_references(corpus):
    # EXPECTED.md A1 (last tick = playback_ticks) and B1; cs2-ref headers
    for ref_path in sorted(glob.glob(os.path.join(corpus, "peers", "*.cs2-ref.json"))):
        ref = json.load(open(ref_path))
        h = zdem.parse_header(os.path.join(corpus, "source2", ref["file"]))
        assert len(h) == 1
        assert h["map_name"][0] == ref["header"]["map_name"]
        assert h["server_name"][0] == ref["header"]["server_name"]
        assert str(h["network_protocol"][0]) == ref["header"].get("network_protocol", str(h["network_protocol"][0]))
    h = zdem.parse_header(os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14011-cs-italy.dem"))
    assert h["playback_ticks"][0] == 391 and h["build_num"][0] == 10072 and h["network_protocol"][0] == 14011


def test_events_match_demoparser2(corpus):
    for ref_path in sorted(glob.glob(os.path.join(corpus, "peers", "cs2_*.cs2-ref.json"))):
        ref = json.load(open(ref_path))
        ev = zdem.parse_events(os.path.join(corpus, "source2", ref["file"]))
        assert list(ev.columns[:3]) == ["tick", "type", "event_name"]
        names = set(ev.loc[ev["type"] == "game_event", "event_name"])
        assert set(ref["game_events"]) <= names
        if "player_death_count" in ref:
            deaths = zdem.parse_events(os.path.join(corpus, "source2", ref["file"]), names=["player_death"])
            assert len(deaths) == ref["player_death_count"]
            assert set(deaths["event_name"]) <= {"player_death"}


def pb_fields(b):
    """A protobuf message's fields by number (the last value of each),
    read by hand: varint, fixed64, length-delimited, fixed32."""
    def varint(i):
        v = sh = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 127) << sh
            sh += 7
            if c < 128:
                return v, i
    out, i = {}, 0
    while i < len(b):
        key, i = varint(i)
        wire = key & 7
        if wire == 0:
            v, i = varint(i)
        elif wire == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wire == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            n, i = varint(i)
            v, i = b[i:i + n], i + n
        out[key >> 3] = v
    return out


def userinfo(path):
    """slot -> (name, xuid) from the userinfo string table, as the
    independent string-table decoder (tests/s2_stringtables_ref.py) reads
    it; CMsgPlayerInfo: name = 1, xuid = 2."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import s2_stringtables_ref as st
    out = {}
    for t in st.run(path):
        if t.name == "userinfo":
            for i, (_, v) in t.entries.items():
                if v:
                    f = pb_fields(v)
                    out[i] = (f.get(1, b"").decode("utf-8", "replace"), f.get(2, 0))
    return out


def test_players(corpus):
    path = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14155-de-dust2.dem")
    pl = zdem.parse_players(path)
    assert list(pl.columns) == ["slot", "name", "team", "steamid", "entity", "first_tick", "last_tick"]
    ref = dp2_ticks(path)
    # demoparser2's players (it lists those with a steam id) are ours too
    for name, sid in {(r["name"], r["steamid"]) for r in ref}:
        assert ((pl["name"] == name) & (pl["steamid"].astype(str) == sid)).any()
    assert pl["name"].is_unique and len(pl) == 10
    n = 0
    for path in sorted(glob.glob(os.path.join(corpus, "source2", "*.dem"))):
        pl, ui = zdem.parse_players(path), userinfo(path)
        # the slot is the userinfo entry of that player, and its xuid the SteamID
        for slot, name, sid in zip(pl["slot"], pl["name"], pl["steamid"]):
            assert ui[slot] == (name, int(sid)), (path, slot, name)
            n += 1
    assert n >= 60


def test_damaged_file_raises_with_the_rows_before(corpus, tmp_path):
    path = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14155-de-dust2.dem")
    data = open(path, "rb").read()
    cut = tmp_path / "cut.dem"
    cut.write_bytes(data[: len(data) * 2 // 3])
    full = zdem.parse_ticks(path, ["X", "health", "name"])
    with pytest.raises(zdem.DemoError) as e:
        zdem.parse_ticks(str(cut), ["X", "health", "name"])
    part = e.value.data
    assert e.value.offset > 0 and e.value.offset <= len(data) * 2 // 3
    assert 0 < len(part) < len(full)
    assert part.equals(full.iloc[: len(part)].reset_index(drop=True))
    with pytest.raises(zdem.DemoError):
        zdem.parse_events(str(cut))


def test_too_many_properties_is_a_usage_error(corpus):
    # issue 26: 16,384 properties ended in a failed allocation; the limit
    # (a vector takes 4 columns of a 65536-column table) is a ValueError
    # naming both numbers, and exactly the limit is accepted by the library
    path = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14155-de-dust2.dem")
    limit = zdem.lib.ZDEM_S2_TICKS_MAX_PROPS
    with pytest.raises(ValueError, match=r"too many properties: %d \(limit %d\)" % (limit + 1, limit)):
        zdem.parse_ticks(path, ["X"] * (limit + 1), ticks=[5])
    assert len(zdem.parse_ticks(path, ["X"] * limit, ticks=[5])) == 10
