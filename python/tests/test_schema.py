"""One schema across formats: the map is map_name, players are rows of
(slot, name, team[, steamid]) in `zdem info --json` and in Python, and
every ticks function takes ticks= and every=. Maps are checked against
EXPECTED.md (B1, B2, B3)."""
import glob
import json
import os
import subprocess
import sys
import warnings

import pytest

import zdem
from conftest import cli_path, expected_table, read


def cli_info(path):
    # the package's CLI itself: `python -m zdem` runs it (test_package.py),
    # without the interpreter's start-up per file
    p = subprocess.run([cli_path(), "info", "--json", path], capture_output=True, text=True)
    assert p.returncode in (0, 2), p.stderr
    return json.loads(p.stdout)


def corpus_files(corpus):
    b1, b2, b3 = expected_table("### B1."), expected_table("### B2."), expected_table("### B3.")
    out = []
    for name, row in b1.items():
        out.append(("source2", os.path.join(corpus, "source2", name), row["map"]))
    for name, row in b2.items():
        out.append(("teeworlds", os.path.join(corpus, "teeworlds", name), row["map"]))
    for name, row in b3.items():
        if row.get("map"):  # dm3/dm_48 rows: not decoded by the table's author
            out.append(("quake3", os.path.join(corpus, "q3", name), row["map"]))
    return out


def test_cli_info_map_name_and_players_everywhere(corpus):
    files = corpus_files(corpus)
    assert len(files) >= 9 + 7 + 38
    for fmt, path, want_map in files:
        info = cli_info(path)
        assert info["format"] == fmt
        assert info["map_name"] == want_map, path
        assert "map" not in info
        players = info["players"]
        assert isinstance(players, list) and players, path
        for p in players:
            keys = {"slot", "name", "team"} | ({"steamid"} if fmt == "source2" else set()) | \
                   ({"clan"} if fmt == "teeworlds" else set())
            assert set(p) == keys, (path, p)
            assert p["team"] is None or isinstance(p["team"], int)


def test_python_map_name_everywhere(corpus):
    for fmt, path, want_map in corpus_files(corpus):
        if fmt == "source2":
            got = read(zdem.parse_header, path)["map_name"].iloc[0]
        elif fmt == "teeworlds":
            got = zdem.tw.header(path)["map_name"].iloc[0]
        else:
            got = read(zdem.q3.header, path)["map_name"].iloc[0]  # the first gamestate
        assert got == want_map, path


def test_players_one_shape_and_same_as_cli(corpus):
    s2 = sorted(glob.glob(os.path.join(corpus, "source2", "cs2_*.dem")))
    for path in s2:
        pl = zdem.parse_players(path)
        assert list(pl.columns[:4]) == ["slot", "name", "team", "steamid"]
        cli = {(p["slot"], p["name"], p["steamid"]) for p in cli_info(path)["players"]}
        assert set(zip(pl["slot"], pl["name"], pl["steamid"].astype(int))) <= cli, path
    for path in sorted(glob.glob(os.path.join(corpus, "teeworlds", "*.demo"))):
        pl = zdem.tw.players(path)
        assert list(pl.columns[:3]) == ["slot", "name", "team"]
        cli = [(p["slot"], p["name"], p["team"], p["clan"]) for p in cli_info(path)["players"]]
        ours = [(s, n, None if t is None or t != t else int(t), c)
                for s, n, t, c in zip(pl["slot"], pl["name"], pl["team"].astype(object), pl["clan"])]
        assert ours == cli, path
    for path in sorted(glob.glob(os.path.join(corpus, "q3", "*.dm_6[68]"))):
        pl = read(zdem.q3.players, path)
        assert list(pl.columns[:4]) == ["gamestate", "slot", "name", "team"]
        # the CLI keeps each slot's first name (its team is the one of the
        # first snapshot after it; q3.players takes every command in order,
        # and test_quake3.py checks those teams against UberDemoTools)
        first = {}
        for s, n in zip(pl["slot"], pl["raw_name"]):
            first.setdefault(int(s), n)
        cli = {p["slot"]: p["name"] for p in cli_info(path)["players"]}
        assert first == cli, path


def test_ticks_and_every_everywhere(corpus):
    s2 = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14155-de-dust2.dem")
    full = zdem.parse_ticks(s2, ["X", "health"])
    ev = zdem.parse_ticks(s2, ["X", "health"], every=32)
    assert len(ev) and (ev["tick"] % 32 == 0).all()
    assert ev.equals(full[full["tick"] % 32 == 0].reset_index(drop=True))
    q3 = os.path.join(corpus, "q3", "q3-cpma_udt-duel.dm_68")
    full = zdem.q3.ticks(q3, ["origin", "weapon"])
    ev = zdem.q3.ticks(q3, ["origin", "weapon"], every=10)  # every 10th snapshot
    assert ev.equals(full.iloc[::10].reset_index(drop=True))
    some = list(full["server_time"].iloc[[5, 50, 500]])
    assert list(zdem.q3.ticks(q3, ["origin"], ticks=some)["server_time"]) == some
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        old = zdem.q3.ticks(q3, ["origin"], times=some)
    assert list(old["server_time"]) == some and any(x.category is DeprecationWarning for x in w)
    tw = os.path.join(corpus, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
    full = zdem.tw.ticks(tw, ["x", "y"])
    ev = zdem.tw.ticks(tw, ["x", "y"], every=50)
    assert len(ev) and ev.equals(full[full["tick"] % 50 == 0].reset_index(drop=True))
    some = sorted(set(full["tick"]))[3:6]
    assert sorted(set(zdem.tw.ticks(tw, ["x"], ticks=some)["tick"])) == some
