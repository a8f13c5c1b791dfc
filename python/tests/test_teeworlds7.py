"""zdem.tw on Teeworlds 0.7 demos: crafted ones (tests/tw07craft.py, every
value known to the writer) and the real recordings tests/fetch_tw07.py
fetches, where present (against the independent decoder tests/tw07_ref.py)."""
import glob
import json
import os
import subprocess
import sys

import pytest

import zdem
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
import tw07craft  # noqa: E402

REAL = sorted(glob.glob(os.path.join(os.environ.get("ZDEM_TW07_DEMOS") or
                                     os.path.join(ROOT, "tests", "tw07-demos"), "*.demo")))


@pytest.fixture(scope="module", params=[{"version": 4}, {"version": 6, "ddnet": True}],
                ids=["v4", "v6-ddnet"])
def crafted(request, tmp_path_factory):
    data, facts = tw07craft.build(**request.param)
    path = str(tmp_path_factory.mktemp("tw07") / "craft7.demo")
    with open(path, "wb") as f:
        f.write(data)
    return path, facts


def test_header(crafted):
    path, facts = crafted
    h = zdem.tw.header(path).iloc[0]
    i = facts["info"]
    for k in ("version", "net_version", "map_name", "map_size", "map_crc", "length", "first_tick", "last_tick"):
        assert h[k] == i[k], k


def test_players(crafted):
    path, facts = crafted
    pl = zdem.tw.players(path)
    assert list(pl.columns) == ["slot", "name", "team", "clan", "country", "first_tick", "last_tick"]
    want = {p["slot"]: (p["name"], p["team"], p["clan"], p["country"]) for p in facts["info"]["players"]}
    assert {r.slot: (r.name, r.team, r.clan, r.country) for r in pl.itertuples()} == want
    # first and last snapshot holding each one's client info
    seen = {}
    for line in facts["snapshots"]:
        if not line.startswith(" "):
            tick = int(line.split()[1])
        elif line.split()[0].startswith("13:"):
            slot = int(line.split()[0].split(":")[1])
            seen.setdefault(slot, [tick, tick])[1] = tick
    assert {r.slot: [r.first_tick, r.last_tick] for r in pl.itertuples()} == seen


def test_chat_and_kills(crafted):
    path, facts = crafted
    kinds = {1: "chat", 2: "tchat", 3: "whisper"}
    want = [(e["tick"], e["client_id"], e.get("name"), kinds[e["mode"]], e["text"])
            for e in facts["events"] if e["type"] == "chat"]
    c = zdem.tw.chat(path)
    got = [(r.tick, r.slot, None if not isinstance(r.name, str) else r.name, r.kind, r.text) for r in c.itertuples()]
    assert got == want
    assert set(c["kind"]) == {"chat", "tchat", "whisper"}
    k = zdem.tw.kills(path)
    want = [(e["tick"], e["killer"], e["killer_name"], e["victim"], e["victim_name"], e["weapon"], e["mode_special"])
            for e in facts["events"] if e["type"] == "kill"]
    assert [tuple(r[1:]) for r in k.itertuples()] == want


def test_ticks_and_props(crafted):
    path, facts = crafted
    props = ["x", "y", "health", "armor", "weapon", "triggered_events"]
    t = zdem.tw.ticks(path, props)
    got = sorted(tuple(int(v) for v in r[1:]) for r in t.itertuples())
    want = sorted(tuple(r[k] for k in ["tick", "entity"] + props) for r in facts["characters"])
    assert got == want
    df = zdem.tw.list_props(path)
    assert df.equals(zdem.list_props(path))
    pairs = set(zip(df["class"], df["name"]))
    assert {("character", "triggered_events"), ("de_client_info", "skin_part_names.5"),
            ("game_data_flag", "flag_drop_tick_blue"), ("player_info", "player_flags")} <= pairs
    assert not any(c == "client_info" for c, _ in pairs)
    with pytest.raises(ValueError, match=r"unknown snapshot object 'client_info'; did you mean 'de_client_info'"):
        zdem.tw.ticks(path, ["name"], obj="client_info")
    with pytest.raises(ValueError, match=r"unknown field 'team'"):  # 0.6's player_info field
        zdem.tw.ticks(path, ["team"], obj="player")
    ci = zdem.tw.ticks(path, ["name", "skin_part_names.0", "use_custom_colors.1"], obj="de_client_info")
    assert set(ci["name"]) == {p["name"] for p in facts["info"]["players"]}
    assert set(ci["use_custom_colors.1"]) == {0}


@pytest.mark.skipif(not REAL, reason="no real 0.7 demos (tests/fetch_tw07.py)")
@pytest.mark.parametrize("path", REAL, ids=[os.path.basename(p) for p in REAL])
def test_real(path):
    ref = os.path.join(ROOT, "tests", "tw07_ref.py")
    evs = [json.loads(l) for l in subprocess.run([sys.executable, ref, "--events", path], capture_output=True,
                                                   text=True, check=True).stdout.splitlines()]
    players = [json.loads(l) for l in subprocess.run([sys.executable, ref, "--players", path], capture_output=True,
                                                       text=True, check=True).stdout.splitlines()]
    pl = zdem.tw.players(path)
    assert {r.slot: (r.name, r.team, r.country) for r in pl.itertuples()} == \
        {p["slot"]: (p["name"], p["team"], p["country"]) for p in players}
    k = zdem.tw.kills(path)
    assert [(r.tick, r.killer, r.victim, r.weapon) for r in k.itertuples()] == \
        [(e["tick"], e["killer"], e["victim"], e["weapon"]) for e in evs if e["type"] == "kill"]
    c = zdem.tw.chat(path)
    assert [(r.tick, r.slot, r.text) for r in c.itertuples()] == \
        [(e["tick"], e["client_id"], e["text"]) for e in evs if e["type"] == "chat"]
    assert len(zdem.tw.ticks(path, ["x", "y"])) > 0
