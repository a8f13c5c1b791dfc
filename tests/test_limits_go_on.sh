#!/bin/sh
# A limit drops only what is over it (issue 26): in every format an item
# over a configured limit is skipped with a warning naming the limit, what
# comes right after it in the same packet, message or stream is still
# decoded, and the exit status is 0. Crafted inputs, each an over-limit
# item followed by chat lines whose text the test wrote:
#  - Source 2, events mode (`events --small`): a chat message not byte
#    aligned and larger than the 64 KiB inner-message buffer, then another
#    chat in the same packet (tests/s2craft.py);
#  - Quake III at ZDEM_Q3_LIMITS_SMALL: a snapshot of 200 entities (the
#    limit is 128), then a chat command in the same message
#    (tests/q3craft.py), appended to a corpus demo;
#  - Teeworlds at ZDEM_TW_LIMITS_SMALL: a full snapshot whose payload is over
#    max_payload (4096), then six chat messages (tests/tw_limitcraft.py),
#    appended to a corpus demo.
# Each is also read at the default limits, where nothing is over: the same
# chat lines, and the over-limit item itself (no warning).
set -eu
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/tests/cli_test_prelude.sh" limits
exec "$PY" - "$SRC/tests" <<'PYEOF'
import json, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import s2craft, q3craft, tw_limitcraft

import zdem_cli_test as T
from zdem_cli_test import check, run, write

T.ZDEM, CORPUS = os.environ["ZDEM"], os.environ["CORPUS"]


def chats(out):
    """Source 2 chat texts (keys.text)."""
    return [e["keys"]["text"] for e in map(json.loads, out.splitlines()) if e.get("type") == "chat"]


# ---- Source 2: an inner message over the events mode's buffer -------------
def ubitvar_bits(v):
    return 6 if v < 16 else 10 if v < 256 else 14 if v < 4096 else 34


def varuint_bits(v):
    n = 8
    while v >= 0x80:
        v >>= 7
        n += 8
    return n


big_text = "x" * (70 << 10)  # past the 64 KiB inner-message buffer
sc = s2craft.Scaffold([], [])
big = s2craft.inner("UM_SayText2", s2craft.say_text2(1, "big", big_text))
after = s2craft.inner("UM_SayText2", s2craft.say_text2(2, "after", "right after the big one"))
# the big message must not be byte aligned (aligned ones are read in place):
# empty net_NOP messages (14 bits each) in front until it is not
for fill in range(4):
    head = [s2craft.net_tick(1)] + [s2craft.inner("net_NOP", b"")] * fill
    pos = sum(ubitvar_bits(t) + varuint_bits(len(p)) + 8 * len(p) for t, p in head)
    pos += ubitvar_bits(big[0]) + varuint_bits(len(big[1]))
    if pos % 8:
        break
assert pos % 8, "the crafted message is byte aligned"
sc.packet(head[1:] + [big, after])
sc.packet([s2craft.inner("UM_SayText2", s2craft.say_text2(3, "next", "a packet later"))])
path = os.path.join(T.TMP, "s2-inner-over.dem")
open(path, "wb").write(sc.finish())
want = ["right after the big one", "a packet later"]
rc, out, err = run(["events", "--json", path])
got = chats(out)
check(rc == 0 and got == [big_text] + want, "source2 full: rc %d, chats %s" % (rc, [g[:20] for g in got]))
rc, out, err = run(["events", "--json", "--small", path])
check(rc == 0, "source2 --small exits 0 (rc %d: %s)" % (rc, err.strip()))
check(chats(out) == want, "source2 --small: the chat after the big one (got %s)" % chats(out))
check("message_limit: 1" in err, "source2 --small: a message_limit warning (%s)" % err.strip())

# ---- Quake III: a snapshot over the small entity limit ---------------------
demo = os.path.join(CORPUS, "q3", "q3-osp_udt-chat.dm_68")
data = open(demo, "rb").read()
w = q3craft.Writer().long(0).byte(q3craft.SVC_SNAPSHOT).long(99999999).byte(0).byte(0).byte(0)
w.byte(0).raw(0, 1)                      # playerstate: nothing changed
for n in range(1, 201):                  # 200 entities, each its baseline
    w.bits_(n, 10).raw(0, 1).raw(0, 1)
w.bits_(1023, 10)                        # ENTITYNUM_NONE: end of the list
w.byte(q3craft.SVC_SERVERCOMMAND).long(1 << 30).string('chat "crafted: after the snapshot"')
w.byte(q3craft.SVC_EOF)
path = os.path.join(T.TMP, "q3-snapshot-over.dm_68")
open(path, "wb").write(q3craft.append_messages(data, [w.payload()]))
texts = lambda out: [e.get("text") for e in map(json.loads, out.splitlines()) if e.get("type") == "chat"]
rc, out, err = run(["events", "--json", path])
check(rc == 0 and texts(out)[-1:] == ["crafted: after the snapshot"],
      "quake3 full: rc %d, last chat %s" % (rc, texts(out)[-1:]))
rc, dump, _ = run(["dump", "--json", path])
snaps = [e for e in map(json.loads, dump.splitlines()) if e.get("type") == "snapshot"]
check(snaps and snaps[-1]["entities"] == 200, "quake3 full: the 200-entity snapshot is read")
rc, out, err = run(["events", "--json", "--small", path])
check(rc == 0, "quake3 --small exits 0 (rc %d: %s)" % (rc, err.strip()))
check(texts(out)[-1:] == ["crafted: after the snapshot"],
      "quake3 --small: the chat after the snapshot (got %s)" % texts(out)[-1:])
check(any(e.get("type") == "warning" and "max_snapshot_entities" in e.get("message", "")
          for e in map(json.loads, out.splitlines())),
      "quake3 --small: a warning naming max_snapshot_entities")
rc, info, err = run(["info", "--json", "--small", path])
check(rc == 0 and json.loads(info).get("error") is None, "quake3 --small info: no error (rc %d)" % rc)

# ---- Teeworlds: a snapshot over max_payload --------------------------------
demo = os.path.join(CORPUS, "teeworlds", "ddnet_demo-edit-test2-pepeg-v5.demo")
data = open(demo, "rb").read()
items = [(0x7F00 + (i % 4), i, [1000000 + i] * 12) for i in range(300)]  # ~19 KB of ints
lines = ["chat line %d after the big snapshot" % i for i in range(6)]
crafted = [tw_limitcraft.full_snapshot(items)] + [tw_limitcraft.chat(0, t) for t in lines]
path = os.path.join(T.TMP, "tw-payload-over.demo")
open(path, "wb").write(tw_limitcraft.append_chunks(data, crafted))
tw_text = lambda out: [e.get("text") for e in map(json.loads, out.splitlines()) if e.get("type") == "chat"]
rc, out, err = run(["events", "--json", path])
check(rc == 0 and tw_text(out)[-6:] == lines, "teeworlds full: rc %d, last chats %s" % (rc, tw_text(out)[-6:]))
rc, dump, _ = run(["dump", "--json", path])
big = [e for e in map(json.loads, dump.splitlines()) if e.get("kind") == "snapshot"][-1]
check(big.get("items") == 300 and "warning" not in big, "teeworlds full: the big snapshot is read (%s)" % big)
rc, out, err = run(["events", "--json", "--small", path])
check(rc == 0, "teeworlds --small exits 0 (rc %d: %s)" % (rc, err.strip()))
check(tw_text(out)[-6:] == lines, "teeworlds --small: all six chat lines (got %s)" % tw_text(out)[-6:])
rc, info, err = run(["info", "--json", "--small", path])
w = json.loads(info).get("warnings", {})
check(rc == 0 and any("max_payload" in k for k in w), "teeworlds --small info: max_payload warning (%s)" % w)
rc, dump, _ = run(["dump", "--json", "--small", path])
big = [e for e in map(json.loads, dump.splitlines()) if e.get("kind") == "snapshot"][-1]
check("max_payload" in big.get("warning", ""), "teeworlds --small dump: the snapshot's warning (%s)" % big)

sys.exit(T.finish())
PYEOF
