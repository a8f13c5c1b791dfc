"""zdem.stream_events: events as they arrive, from a broadcast directory, a
broadcast served over HTTP on 127.0.0.1 (a server started here, stopped at
the end), and a demo file while it is written.

The references are the CLI's `zdem events --json` lines (for a broadcast:
the reading tests/test_live_broadcast.sh checks against DemoFile.Net's and
the .dem reading) and, for the growing file, zdem.parse_events of the whole
file through the library (checked against demoparser2 elsewhere)."""
import http.server
import json
import os
import shutil
import subprocess
import threading
import time

import pytest

import zdem

from conftest import cli_path

BC = "source2-broadcast/deadlock-demofile-net"
BC_CUT = "source2-broadcast/deadlock-demofile-net-2025-02-27"


def cli_lines(*args):
    p = subprocess.run([cli_path(), "events", "--json"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return [json.loads(l) for l in p.stdout.splitlines()], p.returncode


def test_broadcast_directory(corpus):
    d = os.path.join(corpus, BC)
    want, rc = cli_lines(d)
    assert rc == 0 and len(want) == 29
    assert list(zdem.stream_events(d)) == want
    # names, as parse_events takes them
    deaths = list(zdem.stream_events(d, names=["player_death"]))
    assert deaths == [e for e in want if e["name"] == "player_death"] and deaths


def test_broadcast_cut_raises_after_its_rows(corpus):
    d = os.path.join(corpus, BC_CUT)
    want, rc = cli_lines(d)
    assert rc == 2 and want
    got = []
    with pytest.raises(zdem.DemoError) as e:
        for row in zdem.stream_events(d):
            got.append(row)
    assert got == want
    assert "no end fragment" in e.value.message and e.value.offset > 0


def test_unknown_name(corpus):
    with pytest.raises(ValueError, match="nosuchevent"):
        list(zdem.stream_events(os.path.join(corpus, BC), names=["nosuchevent"]))


class _Relay(http.server.BaseHTTPRequestHandler):
    root = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        rel = self.path.lstrip("/").split("/", 1)[-1]  # /bc/22/full -> 22/full
        name = "sync.json" if rel == "sync" else rel + ".bin"
        p = os.path.join(self.root, name)
        if ".." in rel or not os.path.isfile(p):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = open(p, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_broadcast_url(corpus):
    d = os.path.join(corpus, BC)
    probe = subprocess.run([cli_path(), "events", "--idle-timeout", "1", "http://127.0.0.1:1/"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if "URLs need libcurl" in probe.stderr:
        pytest.skip("this zdem was built without libcurl")
    handler = type("Relay", (_Relay,), {"root": d})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d/bc" % server.server_address[1]
        want, _ = cli_lines(d)
        assert list(zdem.stream_events(url, poll=50, idle_timeout=10)) == want
    finally:
        server.shutdown()


HANG_S = 120  # no progress for this long: a hang (never a verdict on speed)


def test_growing_file(corpus, tmp_path):
    """A CS2 demo written in 8 pieces: the rows are the whole file's, and
    they stream: the writer writes piece k+1 only once stream_events has
    yielded every row the file as it is after piece k yields when read whole
    (the CLI on that prefix). Rows held back until more bytes came, or until
    the end, would never get them: a hang after HANG_S, reported. An order,
    not a clock."""
    src = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14065-de-nuke.dem")
    data = open(src, "rb").read()
    cuts = [k * len(data) // 8 for k in range(1, 9)]
    ready = []
    for c in cuts:
        pre = str(tmp_path / "prefix.dem")
        with open(pre, "wb") as f:
            f.write(data[:c])
        ready.append(len(cli_lines(pre)[0]))
    assert ready[0] < ready[-1]  # the rows arrive with the pieces, not all at first
    path = str(tmp_path / "live.dem")
    open(path, "wb").close()
    rows, hung = [], []
    cond = threading.Condition()

    def writer():
        with open(path, "r+b") as f:
            for k, c in enumerate(cuts):
                f.seek(0, 2)
                f.write(data[f.tell():c])
                f.flush()
                with cond:
                    if not cond.wait_for(lambda: len(rows) >= ready[k], HANG_S):
                        hung.append((k + 1, len(rows), ready[k]))
                        # the rest, so that the reader can end
                        f.write(data[c:])
                        f.flush()
                        return

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    for row in zdem.stream_events(path, idle_timeout=2 * HANG_S, poll=100):
        with cond:
            rows.append(row)
            cond.notify_all()
    t.join(HANG_S)
    assert not hung, "after piece %d of 8, %d rows of the %d the file then yields: a hang" % hung[0]
    ref = zdem.parse_events(src)
    assert [(r["tick"], r["type"], r["name"]) for r in rows] == \
        list(zip(ref["tick"], ref["type"], ref["event_name"]))
    assert rows == cli_lines(src)[0]


def test_closing_early_stops_the_reader(corpus, tmp_path):
    """A file that never ends: taking two rows and closing the generator
    stops the follower at once (no wait for idle_timeout)."""
    src = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14065-de-nuke.dem")
    path = str(tmp_path / "cut.dem")
    shutil.copyfile(src, path)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(src) // 2)  # no DEM_Stop: it would be followed
    t0 = time.monotonic()
    gen = zdem.stream_events(path, idle_timeout=600)
    rows = [next(gen), next(gen)]
    gen.close()
    assert rows and time.monotonic() - t0 < 300
