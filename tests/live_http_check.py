#!/usr/bin/python3
"""A broadcast served live from 127.0.0.1 to `zdem events URL`.

    live_http_check.py ZDEM BROADCAST_DIR

A server started here (loopback only, an ephemeral port, stopped at the
end) serves the fixture's fragments as a relay does during a match: sync
and the start and full fragments at once, then the delta fragments one by
one, each answered 404 until it is published, under the token the sync's
token_redirect names (as CS2's relays do). On the way it stalls one answer
half-way, drops one connection half-way through a fragment (answering the
retry's range with the rest, 206) and drops another where it then ignores
the range (the whole fragment again, 200).

Streaming is proved by order, not by time: a delta fragment is published
only after zdem has asked for it once (and got a 404) and after every line
of the fragments before it is on zdem's stdout (read here through a pipe).
So each line must be written and flushed when its fragment is decoded:
a zdem that held lines back until later fragments or the end would never
be given them, and would stop after --idle-timeout with lines missing.
No clock decides a verdict; latencies are measured and printed only.

Checked:
  * zdem's lines are those of the directory reading (`zdem events DIR`),
    and each fragment's came out before the next fragment was published;
  * no line came before its fragment was published (nothing read from the
    future);
  * the server answered 404 for fragments not yet published, both dropped
    transfers resumed, and nothing was asked past the end record;
  * then a server gone wrong, whose first delta fragment never ends:
    `--max-fragment N` stops zdem there (exit 2, the limit named at the
    fragment's byte N MiB) instead of reading on, and zdem's peak resident
    memory reading 32 MiB of it is that of reading 1 MiB (within 16 MiB):
    the fragment streams through, nothing in it decides an allocation.
A run that does not end within a generous bound (HANG_S) is reported as a
hang, never as slow.
"""
import http.server
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

zdem, bdir = sys.argv[1], sys.argv[2]
HANG_S = 300.0    # a run still going after this hangs (it takes seconds)
IDLE_S = 60       # zdem's --idle-timeout: gives up on a withheld fragment
fails = []


def bad(msg):
    fails.append(msg)
    print("FAIL:", msg)


def read_fragment(n, kind):
    for name in ("%d/%s" % (n, kind), "%d/%s.bin" % (n, kind)):
        p = os.path.join(bdir, name)
        if os.path.isfile(p):
            return open(p, "rb").read()
    return None


def record_ticks(data):
    """Ticks of a fragment's records, and whether it ends the broadcast
    (read here from the format's description, not by zdem)."""
    ticks, p = [], 0
    while p < len(data):
        cmd = s = 0
        while True:
            c = data[p]
            p += 1
            cmd |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                break
        tick, = struct.unpack_from("<I", data, p)
        p += 5
        if cmd == 0:
            return ticks, True
        size, = struct.unpack_from("<I", data, p)
        p += 4 + size
        ticks.append(tick)
    return ticks, False


sync = json.loads(open(os.path.join(bdir, "sync.json"), "rb").read())
# a relay may move the fragments under a token (CS2's GOTV+ does): the
# sync names it, JSON-escaped as Valve writes it
TOKEN = "s85568392920768736t1636037391"
sync_bytes = json.dumps(dict(sync, token_redirect=TOKEN + "/")).replace("/", "\\/").encode()
# the fragments in reading order
frags = [("%d/start" % sync.get("signup_fragment", 0), read_fragment(sync.get("signup_fragment", 0), "start")),
         ("%d/full" % sync["fragment"], read_fragment(sync["fragment"], "full"))]
n = sync["fragment"]
while True:
    data = read_fragment(n, "delta")
    if data is None:
        break
    frags.append(("%d/delta" % n, data))
    if record_ticks(data)[1]:
        break
    n += 1
if not record_ticks(frags[-1][1])[1]:
    sys.exit("live_http_check: %s has no end fragment: serve one that has" % bdir)
index = {name: j for j, (name, _) in enumerate(frags)}
by_path = {name: data for name, data in frags}
deltas = [name for name, _ in frags if name.endswith("/delta")]
stall_on = deltas[1] if len(deltas) > 1 else None       # answered slowly
drop_range = deltas[2] if len(deltas) > 2 else None     # dropped; range honoured
drop_whole = deltas[4] if len(deltas) > 4 else None     # dropped; range ignored

# the reference: the same fragments read from the directory
ref = subprocess.run([zdem, "events", "--json", bdir], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()

# which fragment each reference line's tick comes from: the latest that
# holds it (a tick may straddle two fragments; the start's lines are the
# pregame's, tick -1)
holds = []
for name, data in frags:
    ticks, _ = record_ticks(data)
    holds.append((name, {-1} if name.endswith("/start") else set(ticks)))
owner = []   # (first, last) fragment index of each reference line
for line in ref:
    tick = json.loads(line)["tick"]
    js = [j for j, (_, ticks) in enumerate(holds) if tick in ticks]
    if not js:
        sys.exit("live_http_check: reference line at tick %d: no fragment holds that tick" % tick)
    owner.append((js[0], js[-1]))
# need[j]: how many of zdem's lines must be on its stdout before fragment
# j is published: through the last line whose fragments all come before j
need = [1 + max([i for i, (_, last) in enumerate(owner) if last < j], default=-1) for j in range(len(frags))]

endless = False   # the second run: the first delta never ends
endless_sent = [0]
log = []          # (time, path, status)
served = {}       # path -> times served (200/206)
dropped = set()
lock = threading.Lock()
t0 = time.monotonic()
published = [j < 2 for j in range(len(frags))]   # sync, start and full: at once
published_at = [0.0 if j < 2 else None for j in range(len(frags))]
refused = [0] * len(frags)   # 404s given for a fragment not yet published
held = [0] * len(frags)      # zdem's lines out at the last such 404
lines = []                   # (time after t0, line) as zdem's stdout gave them
early = []                   # lines whose fragment was not published when they came


def publish(j, now):
    """Called for each request of fragment j not yet published: publishes it
    when zdem asked before (and was refused), the fragment before it is out,
    and zdem's stdout holds every line of the fragments before it."""
    with lock:
        if not published[j] and refused[j] and published[j - 1] and len(lines) >= need[j]:
            published[j] = True
            published_at[j] = now
        return published[j]


class Relay(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body=b"", extra=()):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for h in extra:
            self.send_header(*h)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        now = time.monotonic() - t0
        m = re.match(r"^/bc/(?:(sync)|%s/(\d+/(?:start|full|delta)))$" % TOKEN, self.path)
        path = (m.group(1) or m.group(2)) if m else None
        if path == "sync":
            with lock:
                log.append((now, path, 200))
            return self.answer(200, sync_bytes, [("Content-Type", "application/json")])
        if path not in by_path or not (endless or publish(index[path], now)):
            with lock:
                log.append((now, path or self.path, 404))
                if path in by_path:
                    refused[index[path]] += 1
                    held[index[path]] = len(lines)
            return self.answer(404)
        data = by_path[path]
        if endless and path == deltas[0]:
            # a server gone wrong: a fragment that never ends (empty
            # DEM_SpawnGroups records, 10 bytes each, up to 64 MiB)
            self.send_response(200)
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            chunk = (b"\x0f" + bytes(9)) * 6554
            try:
                for _ in range((64 << 20) // len(chunk)):
                    self.wfile.write(chunk)
                    endless_sent[0] += len(chunk)
            except OSError:
                pass  # the client hung up: what it should do
            self.close_connection = True
            return
        rng = re.match(r"^bytes=(\d+)-$", self.headers.get("Range", ""))
        with lock:
            first = path not in dropped
            if path in (drop_range, drop_whole) and first:
                dropped.add(path)
                log.append((now, path, "drop"))
            else:
                first = False
                served[path] = served.get(path, 0) + 1
        if path in (drop_range, drop_whole) and first:
            # the headers promise it all; half comes, then the connection goes
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if rng and path == drop_range and int(rng.group(1)) < len(data):
            start = int(rng.group(1))
            with lock:
                log.append((now, path, 206))
            return self.answer(206, data[start:],
                               [("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))])
        with lock:
            log.append((now, path, 200))
        if path == stall_on:  # a slow relay: the answer stalls half-way
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            time.sleep(0.3)
            self.wfile.write(data[len(data) // 2:])
            return
        return self.answer(200, data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
server.daemon_threads = True
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()

proc = subprocess.Popen([zdem, "events", "--json", "--poll", "100", "--idle-timeout", str(IDLE_S),
                         "http://127.0.0.1:%d/bc" % port],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def reader():
    for line in proc.stdout:
        now = time.monotonic() - t0
        line = line.rstrip("\n")
        with lock:
            i = len(lines)
            # its fragment must be out already (published before served)
            if i < len(owner) and not published[owner[i][0]]:
                early.append((i, line))
            lines.append((now, line))


rt = threading.Thread(target=reader, daemon=True)
rt.start()
try:
    proc.wait(timeout=HANG_S)
except subprocess.TimeoutExpired:
    proc.kill()
    bad("zdem hung: still running after %.0f s (kill)" % HANG_S)
rt.join(HANG_S)
err = proc.stderr.read()
if proc.returncode != 0:
    bad("zdem exit %s: %s" % (proc.returncode, err.strip()))

got = [l for _, l in lines]
if got != ref:
    bad("the lines differ from the directory reading (%d vs %d lines)" % (len(got), len(ref)))
withheld = [j for j in range(2, len(frags)) if not published[j]]
if withheld:
    j = withheld[0]
    bad("fragment %s was never published: it waited for zdem's stdout to hold %d lines (those of "
        "the fragments before it); zdem asked for it %d times, the last time with %d lines out. "
        "The lines of a fragment must be written when it is decoded, not later" %
        (frags[j][0], need[j], refused[j], held[j]))
for i, line in early:
    bad("line %d (%s) came before its fragment %s was published" % (i, line[:60], frags[owner[i][0]][0]))
# latency after publication, measured for information only (never asserted:
# the order above is the proof)
lat = [when - published_at[owner[i][1]] for i, (when, _) in enumerate(lines)
       if i < len(owner) and published_at[owner[i][1]] is not None]
gated = sum(1 for j in range(2, len(frags)) if need[j] > need[j - 1])
four04 = sum(1 for _, p, s in log if s == 404 and p in by_path)
if not four04:
    bad("the server never answered 404 for a fragment not yet there")
for p in (drop_range, drop_whole):
    if p and (p not in dropped or served.get(p, 0) < 1):
        bad("fragment %s: dropped %s, then served %d times" % (p, p in dropped, served.get(p, 0)))
if any(s == 206 for _, p, s in log if p == drop_range) is False and drop_range:
    bad("the dropped transfer of %s was not resumed with a range" % drop_range)
past = [p for _, p, s in log if p not in by_path and p != "sync"]
if past:
    bad("asked for fragments past the end: %s" % sorted(set(past)))

# an endless fragment: --max-fragment stops the run, reported, no hang;
# the fragment streams through (zdem's peak resident memory does not grow
# with it: 32 MiB read cost no more than 1 MiB; sanitizer builds included,
# whose own overhead is the same in both runs)
endless = True


def endless_run(mib):
    # /usr/bin/time measures zdem alone (a child's own peak would count the
    # Python pages it was forked from)
    timer = ["/usr/bin/time", "-f", "zdem-peak-rss-kb %M"] if os.access("/usr/bin/time", os.X_OK) else []
    t = time.monotonic()
    try:
        p = subprocess.run(timer + [zdem, "events", "--json", "--poll", "100", "--idle-timeout", str(IDLE_S),
                                    "--max-fragment", str(mib), "http://127.0.0.1:%d/bc" % port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=HANG_S)
    except subprocess.TimeoutExpired:
        bad("endless fragment with --max-fragment %d: zdem hung (still running after %.0f s)" % (mib, HANG_S))
        return None, ""
    errs = p.stderr.strip().splitlines()
    peak = None
    if errs and errs[-1].startswith("zdem-peak-rss-kb "):
        peak = int(errs.pop().split()[1]) * 1024
    if errs and errs[-1].startswith("Command exited with"):
        errs.pop()
    last = errs[-1] if errs else ""
    if p.returncode != 2 or "broadcast fragment larger than the limit" not in last or \
            "(fragment %s, byte %d)" % (deltas[0], mib << 20) not in last:
        bad("endless fragment with --max-fragment %d: exit %d, %r" % (mib, p.returncode, last))
    print("endless fragment, --max-fragment %d: stopped after %.2f s, peak resident memory %s: %s" %
          (mib, time.monotonic() - t, "%.1f MiB" % (peak / 1048576.0) if peak else "not measured",
           last.split(": ", 2)[-1]))
    return peak, last


small, _ = endless_run(1)
large, _ = endless_run(32)
if small is None or large is None:
    print("SKIP the memory check: no /usr/bin/time (apt-get install time)")
elif large >= small + (16 << 20):
    bad("zdem's resident memory grew from %.1f MiB (1 MiB read) to %.1f MiB (32 MiB read): "
        "the fragment was held" % (small / 1048576.0, large / 1048576.0))
server.shutdown()

lat.sort()
print("lines: %d (directory reading: %d); %d of %d delta fragments were withheld until new lines "
      "were on zdem's stdout, the rest until it had asked for them" %
      (len(lines), len(ref), gated, len(deltas)))
if lat:
    print("for information, not checked: a line came after its fragment was published by "
          "median %.0f ms, max %.0f ms" % (1000 * lat[len(lat) // 2], 1000 * lat[-1]))
print("server: %d fragments, %d answers 404 before they were published, dropped %s (resumed with a range: %s), "
      "stalled %s" % (len(frags), four04, sorted(dropped), drop_range, stall_on))
if fails:
    sys.exit(1)
print("OK")
