"""Python memory (issue 26): every call returns what it took (file
mappings, parser arenas, tables: nothing waits for the garbage collector),
a result costs at most twice its DataFrame's own size at its peak, and
max_rows stops a call with the rows so far.

The repeated-call test runs each public function ZDEM_PY_MEMORY_CALLS
(default 1,000) times on a small corpus file, and on a damaged copy where
the function raises DemoError, with the cycle collector off (a reference
cycle would keep a call's memory), in a process per function (four at a
time); resident memory after the last call must be within 10 MB of where
the 10th left it."""
import json
import os
import pickle
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import zdem
from conftest import CORPUS

S2 = os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14132-de-ancient.dem")
Q3 = os.path.join(CORPUS, "q3", "q3-cpma_udt-core-gameplay-dev.dm_68")
TW = os.path.join(CORPUS, "teeworlds", "ddnet_demo-edit-test2-pepeg-v5.demo")

# name -> expression on f (the file); every public function of the package
CALLS = {
    "source2": {
        "parse_header": "zdem.parse_header(f)",
        "parse_events": "zdem.parse_events(f)",
        "parse_ticks": "zdem.parse_ticks(f, ['X', 'Y', 'health', 'name', 'steamid'])",
        "parse_players": "zdem.parse_players(f)",
        "parse_event": "zdem.parse_event(f, 'server_cvar', player=['X', 'health'], other=['total_rounds_played'])",
        "parse_player_info": "zdem.parse_player_info(f)",
        "list_game_events": "zdem.list_game_events(f)",
        "list_props": "zdem.list_props(f)",
    },
    "quake3": {
        "q3.header": "zdem.q3.header(f)",
        "q3.players": "zdem.q3.players(f)",
        "q3.obituaries": "zdem.q3.obituaries(f)",
        "q3.chat": "zdem.q3.chat(f)",
        "q3.scores": "zdem.q3.scores(f)",
        "q3.ticks": "zdem.q3.ticks(f, ['origin', 'weapon'])",
        "q3.list_props": "zdem.q3.list_props(f)",
    },
    "teeworlds": {
        "tw.header": "zdem.tw.header(f)",
        "tw.players": "zdem.tw.players(f)",
        "tw.chat": "zdem.tw.chat(f)",
        "tw.kills": "zdem.tw.kills(f)",
        "tw.ticks": "zdem.tw.ticks(f, ['x', 'y', 'health'])",
        "tw.list_props": "zdem.tw.list_props(f)",
    },
}
# damaged copies: the call raises DemoError (with .data) every time
DAMAGED = {"source2": ["parse_events", "parse_ticks", "parse_event"], "quake3": ["q3.chat", "q3.players"],
           "teeworlds": ["tw.chat", "tw.players"]}
FILES = {"source2": S2, "quake3": Q3, "teeworlds": TW}

LOOP = textwrap.dedent("""
    import gc, json, os, sys
    import zdem
    calls, path, cut, damaged, n = json.loads(sys.argv[1])
    page = os.sysconf("SC_PAGE_SIZE")

    def rss():
        with open("/proc/self/statm") as s:
            return int(s.read().split()[1]) * page

    out = {}
    for name, expr in calls.items():
        for what, f in ([("", path)] + ([(" (damaged)", cut)] if name in damaged else [])):
            fn = eval("lambda f: " + expr)

            def call():
                try:
                    fn(f)
                except zdem.DemoError as e:
                    assert what and e.data is not None
                else:
                    assert not what, "no DemoError on the damaged copy"
            gc.collect()
            gc.disable()  # a reference cycle would keep a call's memory
            for i in range(10):
                call()
            at10 = rss()
            for i in range(n - 10):
                call()
            out[name + what] = [at10, rss()]
            gc.enable()
    print(json.dumps(out))
""")


def cut_copy(src, dst, frac):
    data = open(src, "rb").read()
    with open(dst, "wb") as f:
        f.write(data[:int(len(data) * frac)])
    return dst


def test_repeated_calls_return_their_memory(tmp_path):
    n = int(os.environ.get("ZDEM_PY_MEMORY_CALLS", "1000"))
    jobs = []
    for fmt, calls in CALLS.items():
        src = FILES[fmt]
        cut = cut_copy(src, str(tmp_path / ("cut-" + os.path.basename(src))), 0.6)
        for name, expr in calls.items():  # a process each: four at a time
            jobs.append(json.dumps([{name: expr}, src, cut, DAMAGED[fmt], n]))
    results, running = {}, []

    def reap(p):
        out, err = p.communicate(timeout=1800)
        assert p.returncode == 0, err
        results.update(json.loads(out))
    for arg in jobs:
        if len(running) == 4:
            reap(running.pop(0))
        running.append(subprocess.Popen([sys.executable, "-c", LOOP, arg], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True))
    for p in running:
        reap(p)
    assert len(results) == sum(len(c) for c in CALLS.values()) + sum(len(d) for d in DAMAGED.values())
    grown = {k: (b - a) / 2 ** 20 for k, (a, b) in results.items()}
    print("resident growth from call 10 to call %d, MB: %s" % (n, json.dumps(grown)))
    assert all(g < 10 for g in grown.values()), grown


def peak_cost(fn):
    """(the result, its own size, the call's traced peak) in bytes."""
    import gc
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            df = fn()
        except zdem.DemoError as e:  # the truncated demo: its rows are the result
            df = e.data
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return df, int(df.memory_usage(deep=True).sum()), peak


@pytest.mark.parametrize("what,fn", [
    ("q3 entity ticks", lambda: zdem.q3.ticks(os.path.join(CORPUS, "q3", "ql_udt-truncated.dm_73"),
                                              ["origin", "eType", "weapon", "clientNum"], entities=True)),
    ("q3 playerstate ticks", lambda: zdem.q3.ticks(os.path.join(CORPUS, "q3", "q3-defrag-vq3_demoreader-cyfio-rlxmini.dm_68"),
                                                   ["origin", "velocity", "viewangles", "stats"])),
    ("s2 ticks", lambda: zdem.parse_ticks(os.path.join(CORPUS, "source2", "dota2_haste-nekit-pov.dem"),
                                          ["X", "Y", "Z", "health", "team_num", "name", "steamid", "m_iszPlayerName"])),
    ("s2 events", lambda: zdem.parse_events(os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14090-cs-italy.dem"))),
    ("q3 chat", lambda: zdem.q3.chat(os.path.join(CORPUS, "q3", "q3-1.31-osp_udt-2002-tdm1-cpl-oslo.dm_67"))),
    ("tw ticks", lambda: zdem.tw.ticks(os.path.join(CORPUS, "teeworlds", "ddnet_demo-edit-clip-fng.demo"),
                                       ["x", "y", "vel_x", "vel_y", "health", "armor", "weapon"])),
])
def test_result_costs_at_most_twice_its_size(what, fn):
    """Traced peak of the call (numpy arrays, Python objects) against the
    result's memory_usage(deep=True): at most twice, plus a constant 64 KiB
    a call needs whatever its size (the DataFrame's index and blocks, the
    chunk collector), which only shows for results of a few hundred rows
    (the corpus's event and chat tables are that small)."""
    df, size, peak = peak_cost(fn)
    print("%s: %d rows, %.2f MB, peak %.2f MB (%.2fx), %.1f bytes per row" % (
        what, len(df), size / 2 ** 20, peak / 2 ** 20, peak / size, peak / max(1, len(df))))
    assert len(df) > 50
    assert peak <= 2 * size + 64 * 1024, (what, peak, size)
    if size > 2 ** 20:
        assert peak <= 2 * size


def test_peak_resident_memory_in_a_subprocess():
    """The same bound on the process's resident high-water mark (VmHWM),
    which also sees the mappings tracemalloc does not: the call that keeps
    one row against the call that keeps them all, each in a fresh process
    (parsing the same file with the same parser state)."""
    code = textwrap.dedent("""
        import sys, zdem
        f, one = sys.argv[1], sys.argv[2] == "1"
        props = ["origin", "eType", "weapon", "clientNum", "pos.trBase", "angles"]
        if one:  # a server time of the file: the first row's
            try:
                zdem.q3.ticks(f, ["origin"], entities=True, max_rows=1)
            except zdem.RowLimitError as e:
                t0 = int(e.data["server_time"].iloc[0])
        try:
            df = zdem.q3.ticks(f, props, entities=True, ticks=[t0] if one else None)
        except zdem.DemoError as e:
            df = e.data
        hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
        print(int(hwm) * 1024, int(df.memory_usage(deep=True).sum()), len(df))
    """)
    f = os.path.join(CORPUS, "q3", "ql_udt-truncated.dm_73")

    def run(one):
        p = subprocess.run([sys.executable, "-c", code, f, "1" if one else "0"], capture_output=True,
                           text=True, check=True)
        return [int(x) for x in p.stdout.split()]
    hwm_one, _, rows_one = run(True)
    hwm_all, size, rows = run(False)
    print("VmHWM %.1f MB for %d rows (%.1f MB), %.1f MB for %d row" % (
        hwm_all / 2 ** 20, rows, size / 2 ** 20, hwm_one / 2 ** 20, rows_one))
    assert rows > 100000 and rows_one <= 64
    assert hwm_all - hwm_one <= 2 * size


def test_max_rows_raises_with_the_rows_so_far():
    path = os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14155-de-dust2.dem")
    full = zdem.parse_ticks(path, ["X", "health", "name"])
    with pytest.raises(zdem.RowLimitError) as e:
        zdem.parse_ticks(path, ["X", "health", "name"], max_rows=25)
    assert isinstance(e.value, zdem.DemoError) and e.value.max_rows == 25
    assert e.value.data.equals(full.iloc[:25])
    back = pickle.loads(pickle.dumps(e.value))  # as a Dask worker sends it
    assert type(back) is zdem.RowLimitError and back.data.equals(e.value.data) and str(back) == str(e.value)
    assert zdem.parse_ticks(path, ["X", "health", "name"], max_rows=len(full)).equals(full)
    q3 = os.path.join(CORPUS, "q3", "q3-cpma_udt-duel.dm_68")
    full = zdem.q3.ticks(q3, ["origin"])
    with pytest.raises(zdem.RowLimitError) as e:
        zdem.q3.ticks(q3, ["origin"], max_rows=100000 + 7 if len(full) > 100007 else len(full) - 3)
    assert e.value.data.equals(full.iloc[:len(e.value.data)]) and len(e.value.data) == e.value.max_rows
    tw = os.path.join(CORPUS, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
    full = zdem.tw.ticks(tw, ["x"])
    with pytest.raises(zdem.RowLimitError) as e:
        zdem.tw.ticks(tw, ["x"], max_rows=10)
    assert e.value.data.equals(full.iloc[:10])
    assert e.value.data["tick"].dtype == np.int64
