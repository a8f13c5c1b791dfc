"""Column types: integers are int64 unless the field is declared 64-bit
unsigned (SteamIDs, 64-bit ids: uint64), booleans bool, floats float64,
strings object; empty results keep their types. The declared types come
from tests/s2_baseline_ref.py, an independent reader of the demo's
flattened serializers (not zdem's decoders)."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import zdem
from conftest import ROOT

DUST2 = "cs2_demofile-net-gotv-14155-de-dust2.dem"
INT = re.compile(r"(u?int(8|16|32|64)|CHandle<.*>|CEntityHandle)$")


def declared_fields(path, cls):
    """(name, declared type) of the class's top-level fields, from the
    reference reader."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "s2_baseline_ref.py"), path, cls,
                        "--fields"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"(\d+) (.+?) (\S+) enc=(\S+)", line)
        if m and not line.startswith(" "):
            out.append((m.group(3), m.group(2)))
    assert len(out) > 20
    return out


def want_dtype(declared):
    """The dtype a column of that declared type must have (None: not a
    scalar this test covers)."""
    if declared == "uint64":
        return "uint64"
    if INT.match(declared.replace(" ", "")):
        return "int64"
    if declared == "bool":
        return "bool"
    if declared in ("float32", "float"):
        return "float64"
    if re.match(r"char\[\d+\]$", declared) or declared in ("CUtlString", "CUtlSymbolLarge"):
        return "object"
    return None


def same_kind(got, want):
    # a column some rows have no value in is the nullable form of its type
    nullable = {"int64": "Int64", "uint64": "UInt64", "bool": "boolean"}
    return str(got) == want or str(got) == nullable.get(want)


@pytest.mark.parametrize("cls", ["CCSPlayerController", "CCSPlayerPawn"])
def test_dtypes_follow_declared_types(corpus, cls):
    path = os.path.join(corpus, "source2", DUST2)
    fields = [(n, t, want_dtype(t)) for n, t in declared_fields(path, cls)]
    fields = [f for f in fields if f[2] is not None and "." not in f[0]]
    props = ["%s.%s" % (cls, n) for n, _, _ in fields]
    df = zdem.parse_ticks(path, props)
    assert len(df) > 1000
    checked = 0
    for (name, declared, want), col in zip(fields, props):
        if col not in df or df[col].isna().all():
            continue  # never sent in this demo
        assert same_kind(df[col].dtype, want), (name, declared, df[col].dtype)
        checked += 1
    assert checked >= 20
    # declared unsigned 8/32-bit: arithmetic does not wrap
    if cls == "CCSPlayerPawn":
        team = df["CCSPlayerPawn.m_iTeamNum"]
        assert team.dtype == np.int64 and ((team - 3) < 0).any()


def test_friendly_names_and_no_wrap(corpus):
    df = zdem.parse_ticks(os.path.join(corpus, "source2", DUST2),
                          ["team_num", "ping", "life_state", "steamid", "is_alive", "health", "X", "name"])
    want = {"tick": "int64", "entity": "int64", "team_num": "int64", "ping": "int64", "life_state": "int64",
            "steamid": "uint64", "is_alive": "bool", "health": "int64", "X": "float64", "name": "object"}
    assert {c: str(t) for c, t in df.dtypes.items()} == want
    assert (df["team_num"] - 3).min() == -1  # T (2) - 3, not 18446744073709551615


def test_empty_results_keep_types(corpus):
    s2 = os.path.join(corpus, "source2", DUST2)
    e = zdem.parse_ticks(s2, ["health", "name"], ticks=[])
    assert len(e) == 0 and e["tick"].dtype == np.int64 and e["entity"].dtype == np.int64
    e = zdem.parse_ticks(s2, ["health"], ticks=[10 ** 6])  # past the end
    assert len(e) == 0 and e["tick"].dtype == np.int64
    # demoparser2 counts no player_death in this demo: no rows, typed columns
    ref = json.load(open(os.path.join(corpus, "peers", DUST2 + ".cs2-ref.json")))
    assert ref["player_death_count"] == 0
    ev = zdem.parse_events(s2, names=["player_death"])
    assert len(ev) == 0 and list(ev.columns) == ["tick", "type", "event_name"]
    assert ev["tick"].dtype == np.int64 and ev["event_name"].dtype == object
    h = zdem.parse_header(s2)
    assert h["build_num"].dtype == np.int64 and h["playback_time"].dtype == np.float64
    assert h["allow_clientside_entities"].dtype in (np.bool_, pd.BooleanDtype())
    # demos whose references count no obituary / no chat line: zero rows,
    # the fixed columns typed
    refs = {f: json.load(open(os.path.join(corpus, "peers", f + ".q3-ref.json")))
            for f in ("q3-defrag-vq3_demoreader-runkull2-xunderbird.dm_68",)}
    for f, ref in refs.items():
        assert ref["obituary_count"] == 0 and ref["chat_count"] == 0
        q3 = os.path.join(corpus, "q3", f)
        ob, ch = zdem.q3.obituaries(q3), zdem.q3.chat(q3)
        assert len(ob) == 0 and ob["server_time"].dtype == np.int64 and ob["attacker"].dtype == np.int64
        assert len(ch) == 0 and ch["slot"].dtype == np.int64 and ch["name"].dtype == object
    tw = "ddnet_demo-edit-cat-catzone.demo"
    assert json.load(open(os.path.join(corpus, "peers", tw + ".tw-ref.json")))["chat_count"] == 0
    tw = os.path.join(corpus, "teeworlds", tw)
    c = zdem.tw.chat(tw)
    assert len(c) == 0 and c["tick"].dtype == np.int64 and c["slot"].dtype == np.int64
    t = zdem.tw.ticks(tw, ["x"], ticks=[])
    assert list(t.columns) == ["tick", "entity", "x"] and t["tick"].dtype == np.int64
    # header and players: no float where an integer is meant
    q3 = os.path.join(corpus, "q3", "q3-cpma_udt-3matches-2gamestates.dm_68")
    assert zdem.q3.header(q3)["first_server_time"].dtype == np.int64
    assert zdem.q3.players(q3)["slot"].dtype == np.int64
    assert zdem.tw.header(tw)["map_size"].dtype == np.int64
    assert zdem.tw.players(tw)["team"].dtype == np.int64
