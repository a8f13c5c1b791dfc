"""zdem.stream_events: events as they arrive, from a Source 2 broadcast (an
http:// URL or a directory laid out like one) or from a demo file still
being written (any format), through the zdem command the package ships
(`zdem events --json`, with --follow for a file): the network and the
waiting stay in the CLI, the library stays without either."""
import json
import os
import re
import shutil
import subprocess
import threading

from ._lib import DemoError


def _cli():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "zdem")
    if os.access(exe, os.X_OK):
        return exe
    exe = os.environ.get("ZDEM_BIN") or shutil.which("zdem")
    if not exe:
        raise RuntimeError("zdem: the command-line tool is not part of this installation "
                           "(pip install ./python ships it; or set ZDEM_BIN)")
    return exe


_ERR = re.compile(r"^zdem: (.*?): offset (\d+)(?: \(payload byte (\d+)\))?(?: \(fragment [^)]*\))?: (.*)$")


def stream_events(source, names=None, follow=None, idle_timeout=None, poll=None,
                  max_fragment=None, memory=None):
    """Yields each event as a dict (the members of a `zdem events --json`
    line: tick, type, name, keys, and the players it names) as soon as its
    fragment or its bytes are decoded.

    source: an http:// or https:// URL of a Source 2 broadcast (BASE, as in
    BASE/sync), a broadcast directory (sync.json, N/start, N/full,
    N/delta), or a demo file of any format. A file is followed (follow=None
    or True) while it grows, until the format's end (Source 2 DEM_Stop,
    Quake III's end marker, Teeworlds' header length written at the
    recorder's stop) or idle_timeout seconds without growth; follow=False
    reads it as it is. A URL is polled every poll milliseconds (default: a
    quarter of the server's fragment interval) until the end fragment or
    idle_timeout seconds without a new one (default 60).
    names: only these events (names or types, as zdem.parse_events).
    max_fragment: MiB, the largest broadcast fragment (default 64);
    memory: MiB, the Source 2 state arena (default 256).

    At the end, a damaged or cut input (a broadcast without its end
    fragment, a file that stopped growing before its end) raises DemoError
    (offset, message; the rows before it were yielded); an unknown name
    raises ValueError. Closing the generator early stops the reader."""
    source = os.fspath(source)
    is_url = source.startswith(("http://", "https://"))
    args = [_cli(), "events", "--json"]
    if names is not None:
        names = [names] if isinstance(names, str) else list(names)
        args += ["--name", ",".join(names)]
    if not is_url and not os.path.isdir(source) and follow is not False:
        args.append("--follow")
    for opt, v in (("--idle-timeout", idle_timeout), ("--poll", poll),
                   ("--max-fragment", max_fragment), ("--memory", memory)):
        if v is not None:
            args += [opt, str(int(v))]
    args.append(source)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1,
                            text=True, encoding="utf-8", errors="surrogateescape")
    err = []
    # stderr drained aside: a long run's warnings must not block it
    drain = threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)
    drain.start()
    try:
        for line in proc.stdout:
            yield json.loads(line)
        proc.wait()
    finally:
        if proc.poll() is None:  # the consumer stopped early
            proc.kill()
            proc.wait()
        proc.stdout.close()
        drain.join(5)
        proc.stderr.close()
    rc = proc.returncode
    last = err[-1].rstrip("\n") if err else ""
    if rc == 0:
        return
    if rc == 1:
        raise ValueError(last[len("zdem: "):] if last.startswith("zdem: ") else last)
    m = _ERR.match(last)
    if rc == 2 and m:
        raise DemoError(source, int(m.group(2)), m.group(4),
                        payload_pos=int(m.group(3)) if m.group(3) else None)
    raise DemoError(source, 0, last or "zdem events exited with status %d" % rc)
