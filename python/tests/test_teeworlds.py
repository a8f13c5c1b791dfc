"""Teeworlds DataFrames against ddnet_demo_c99's side data
(peers/*.tw-ref.json), EXPECTED.md B2 and the libtw2-doc reference decoder
(tests/tw_snapshot_ref.py)."""
import glob
import json
import os
import subprocess
import sys

import pytest

import zdem
from conftest import ROOT, expected_table


def tw_files(corpus):
    files = sorted(glob.glob(os.path.join(corpus, "teeworlds", "*.demo")))
    assert len(files) >= 7
    return files


def tw_ref(corpus, path):
    return json.load(open(os.path.join(corpus, "peers", os.path.basename(path) + ".tw-ref.json")))


def test_header_matches_reference(corpus):
    b2 = expected_table("### B2.")
    for path in tw_files(corpus):
        ref = tw_ref(corpus, path)
        h = zdem.tw.header(path)
        assert len(h) == 1
        row = h.iloc[0]
        for k in ("version", "net_version", "map_name", "map_size", "map_crc", "type", "length",
                  "timestamp", "first_tick", "last_tick"):
            assert row[k] == ref[k], (path, k)
        assert row["timeline_markers"] == ref["num_timeline_markers"]
        assert row["map_sha256"] == (ref["map_sha256"] if ref["has_map_sha256"] else None)
        exp = b2[os.path.basename(path)]  # EXPECTED.md B2
        assert (row["map_name"], row["map_size"], row["length"]) == (exp["map"], int(exp["map_size"]),
                                                                    int(exp["length_s"]))
        assert "%d..%d" % (row["first_tick"], row["last_tick"]) == exp["ticks"]


def test_chat_and_kills_match_reference(corpus):
    chats = kills = 0
    for path in tw_files(corpus):
        ref = tw_ref(corpus, path)
        c = zdem.tw.chat(path)
        assert list(c.columns) == ["tick", "slot", "name", "kind", "text"]
        kinds = {0: "chat", 1: "tchat"}
        assert list(zip(c["tick"], c["kind"], c["slot"], c["text"])) == \
            [(x["tick"], kinds[x["team"]], x["client_id"], x["text"]) for x in ref["chat"]]
        k = zdem.tw.kills(path)
        assert len(k) == ref["killmsg_count"]
        chats += len(c)
        kills += len(k)
    assert chats > 10 and kills > 20


def reference(path, opt):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tw_snapshot_ref.py"), opt, path],
                       capture_output=True, text=True, check=True)
    out = {}
    for line in p.stdout.splitlines():
        cid, _, v = line.partition(" ")
        out[int(cid)] = v
    return out


def test_players_match_reference(corpus):
    for path in tw_files(corpus):
        names, teams = reference(path, "--names"), reference(path, "--teams")
        pl = zdem.tw.players(path)
        assert list(pl.columns) == ["slot", "name", "team", "clan", "country", "first_tick", "last_tick"]
        assert dict(zip(pl["slot"], pl["name"])) == names
        got = {s: int(t) for s, t in zip(pl["slot"], pl["team"].astype(object)) if t is not None and t == t}
        assert got == {c: int(t) for c, t in teams.items() if c in names}
        assert (pl["first_tick"] <= pl["last_tick"]).all()


def test_ticks(corpus):
    path = os.path.join(corpus, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
    t = zdem.tw.ticks(path, ["x", "y", "health"], every=100)
    assert len(t) > 0 and (t["tick"] % 100 == 0).all()
    with pytest.raises(ValueError):
        zdem.tw.ticks(path, ["nosuch"])
