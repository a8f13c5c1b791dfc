#!/usr/bin/python3
"""A broadcast served live from 127.0.0.1 to `zdem events URL`.

    live_http_check.py ZDEM BROADCAST_DIR [INTERVAL_S]

A server started here (loopback only, an ephemeral port, stopped at the end)
serves the fixture's fragments as a relay does during a match: sync and the
start and full fragments at once, then one delta fragment every INTERVAL_S
(default 1.0), each answered 404 until its time, under the token the
sync's token_redirect names (as CS2's relays do). On the way it stalls one
answer for a while, drops one connection half-way through a fragment
(answering the retry's range with the rest, 206) and drops another where
it then ignores the range (the whole fragment again, 200).

Checked:
  * zdem's lines are those of the directory reading (`zdem events DIR`);
  * each line comes out after its fragment is published (nothing read from
    the future) and within INTERVAL_S of it (the issue's bound: one
    fragment interval); the latencies are printed;
  * the server saw 404s before fragments existed, both dropped transfers
    resumed, and nothing was asked past the end record;
  * then a server gone wrong, whose first delta fragment never ends:
    `--max-fragment N` stops zdem there (exit 2, the limit named at the
    fragment's byte N MiB) instead of reading on, and zdem's peak resident
    memory reading 32 MiB of it is that of reading 1 MiB (within 16 MiB):
    the fragment streams through, nothing in it decides an allocation.
The whole run is bounded (zdem is killed after a deadline: a failure).
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
interval = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
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
# the fragments in reading order, with the time (after t0) each appears
frags = [("%d/start" % sync.get("signup_fragment", 0), read_fragment(sync.get("signup_fragment", 0), "start"), 0.0),
         ("%d/full" % sync["fragment"], read_fragment(sync["fragment"], "full"), 0.0)]
n, k = sync["fragment"], 1
while True:
    data = read_fragment(n, "delta")
    if data is None:
        break
    frags.append(("%d/delta" % n, data, k * interval))
    if record_ticks(data)[1]:
        break
    n, k = n + 1, k + 1
if not record_ticks(frags[-1][1])[1]:
    sys.exit("live_http_check: %s has no end fragment: serve one that has" % bdir)
by_path = {name: (data, at) for name, data, at in frags}
deltas = [name for name, _, _ in frags if name.endswith("/delta")]
stall_on = deltas[1] if len(deltas) > 1 else None       # answered slowly
drop_range = deltas[2] if len(deltas) > 2 else None     # dropped; range honoured
drop_whole = deltas[4] if len(deltas) > 4 else None     # dropped; range ignored

endless = False   # the second run: the first delta never ends
endless_sent = [0]
log = []          # (time, path, status)
served = {}       # path -> times served (200/206)
dropped = set()
lock = threading.Lock()
t0 = None


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
        if path not in by_path or now < by_path[path][1]:
            with lock:
                log.append((now, path or self.path, 404))
            return self.answer(404)
        data = by_path[path][0]
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
            time.sleep(min(0.3, interval / 3))
            self.wfile.write(data[len(data) // 2:])
            return
        return self.answer(200, data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
server.daemon_threads = True
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()

# the reference: the same fragments read from the directory
ref = subprocess.run([zdem, "events", "--json", bdir], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()

t0 = time.monotonic()
proc = subprocess.Popen([zdem, "events", "--json", "--poll", "100", "--idle-timeout", "30",
                         "http://127.0.0.1:%d/bc" % port],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
lines = []  # (time after t0, line)


def reader():
    for line in proc.stdout:
        lines.append((time.monotonic() - t0, line.rstrip("\n")))


rt = threading.Thread(target=reader, daemon=True)
rt.start()
deadline = frags[-1][2] + 60.0
try:
    proc.wait(timeout=deadline)
except subprocess.TimeoutExpired:
    proc.kill()
    bad("zdem did not finish within %.0f s" % deadline)
rt.join(5)
err = proc.stderr.read()
if proc.returncode != 0:
    bad("zdem exit %s: %s" % (proc.returncode, err.strip()))

got = [l for _, l in lines]
if got != ref:
    bad("the lines differ from the directory reading (%d vs %d lines)" % (len(got), len(ref)))

# which fragment each line's tick comes from: the latest that holds it
holds = []
for name, data, at in frags:
    ticks, _ = record_ticks(data)
    if name.endswith("/start"):
        ticks = [-1]  # the pregame
    holds.append((name, set(ticks), at))
lat = []
for when, line in lines:
    tick = json.loads(line)["tick"]
    owners = [(name, at) for name, ticks, at in holds if tick in ticks]
    if not owners:
        bad("line at tick %d: no fragment holds that tick" % tick)
        continue
    first_at, last_at = owners[0][1], owners[-1][1]
    if when < first_at:
        bad("line at tick %d came at %.3f s, before its fragment %s existed (%.3f s)" %
            (tick, when, owners[0][0], first_at))
    lat.append(when - last_at)
    if when - last_at > interval:
        bad("line at tick %d came %.3f s after fragment %s appeared: more than one interval (%.3f s)" %
            (tick, when - last_at, owners[-1][0], interval))
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
        p = subprocess.run(timer + [zdem, "events", "--json", "--poll", "100", "--idle-timeout", "30",
                                    "--max-fragment", str(mib), "http://127.0.0.1:%d/bc" % port],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        bad("endless fragment with --max-fragment %d: zdem did not stop" % mib)
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
if lat:
    print("lines: %d, equal to the directory reading; latency after the fragment appeared: "
          "median %.0f ms, max %.0f ms (bound %.0f ms)" %
          (len(lat), 1000 * lat[len(lat) // 2], 1000 * lat[-1], 1000 * interval))
print("server: %d fragments, %d answers 404 before they existed, dropped %s (resumed with a range: %s), "
      "stalled %s" % (len(frags), four04, sorted(dropped), drop_range, stall_on))
if fails:
    sys.exit(1)
print("OK")
