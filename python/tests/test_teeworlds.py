"""Teeworlds DataFrames against ddnet_demo_c99's side data
(peers/*.tw-ref.json) and the libtw2-doc reference decoder
(tests/tw_snapshot_ref.py)."""
import glob
import json
import os
import subprocess
import sys

import pytest

import zdem
from conftest import ROOT


def tw_files(corpus):
    files = sorted(glob.glob(os.path.join(corpus, "teeworlds", "*.demo")))
    assert len(files) >= 7
    return files


def test_chat_and_kills_match_reference(corpus):
    chats = kills = 0
    for path in tw_files(corpus):
        ref = json.load(open(os.path.join(corpus, "peers", os.path.basename(path) + ".tw-ref.json")))
        c = zdem.tw.chat(path)
        assert list(c.columns) == ["tick", "team", "client_id", "name", "text"]
        assert list(zip(c["tick"], c["team"], c["client_id"], c["text"])) == \
            [(x["tick"], x["team"], x["client_id"], x["text"]) for x in ref["chat"]]
        k = zdem.tw.kills(path)
        assert len(k) == ref["killmsg_count"]
        chats += len(c)
        kills += len(k)
    assert chats > 10 and kills > 20


def test_players_match_reference_names(corpus):
    for path in tw_files(corpus):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tw_snapshot_ref.py"), "--names", path],
                           capture_output=True, text=True, check=True)
        ref = {}
        for line in p.stdout.splitlines():
            cid, _, name = line.partition(" ")
            ref[int(cid)] = name
        pl = zdem.tw.players(path)
        assert dict(zip(pl["client_id"], pl["name"])) == ref
        assert (pl["first_tick"] <= pl["last_tick"]).all()


def test_ticks(corpus):
    path = os.path.join(corpus, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
    t = zdem.tw.ticks(path, ["x", "y", "health"], every=100)
    assert len(t) > 0 and (t["tick"] % 100 == 0).all()
    with pytest.raises(ValueError):
        zdem.tw.ticks(path, ["nosuch"])
