#!/bin/bash
# The players `zdem events` names on Source 2 events (<role>_name,
# <role>_steamid, <role>_team_num after "keys"; runtime/source2/
# source2_players.c) against independent references, through the CLI (so
# the sanitizer builds run it):
#  - CS2 14011, 14090, 14150 (player_death, player_hurt, ...; demoparser2
#    cannot read them): every userid/attacker/assister names the player the
#    reference userinfo decoder (tests/s2_userinfo_ref.py) holds for it, or
#    nobody (65535), with its SteamID (none for bots);
#  - Dota 2: chat names its speaker by player id: gem-dota's player list
#    (peers/*.s2-gem.json, by player id) and the reference userinfo;
#  - the events mode (--small, no entities) names them from userinfo only;
#  - --format csv carries them in its json column;
#  - a cut demo: the events before the cut, named as in the whole file.
# parse_event/parse_player_info against demoparser2: python/tests.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import csv, io, json, os, sys
sys.path.insert(0, sys.argv[3])
import zdem_cli_test as T
import s2_userinfo_ref as uiref

T.ZDEM, CORPUS = sys.argv[1], sys.argv[2]
S2 = os.path.join(CORPUS, "source2")
ROLES = (("userid", "user"), ("attacker", "attacker"), ("assister", "assister"))


def events(args):
    rc, out, err = T.run(["events", "--json"] + args)
    T.check(rc == 0, "events %s exits 0 (%s)" % (" ".join(args[-1:]), err[-200:]))
    return [json.loads(l) for l in out.splitlines()]


for tag in ("14011-cs-italy", "14090-cs-italy", "14150-ag2-de-train"):
    path = os.path.join(S2, "cs2_demofile-net-gotv-%s.dem" % tag)
    ui = uiref.userinfo(path)
    evs = events([path])
    n = {r: 0 for _, r in ROLES}
    bad = 0
    for e in evs:
        keys = e.get("keys", {})
        for key, role in ROLES:
            if e["type"] != "game_event" or key not in keys:
                continue
            if role + "_name" not in e:
                bad += 1
                T.check(False, "%s: %s at %d has %s but no %s_name" % (tag, e["name"], e["tick"], key, role))
                continue
            slot = uiref.slot_of(ui, keys[key])
            want = (None, None) if keys[key] in (65535, -1) or slot is None else \
                (ui[slot]["name"], ui[slot]["xuid"] or None)
            got = (e[role + "_name"], e[role + "_steamid"])
            if got != want:
                bad += 1
                if bad < 5:
                    T.check(False, "%s: %s at %d: %s=%s names %r, the reference userinfo %r"
                            % (tag, e["name"], e["tick"], key, keys[key], got, want))
            n[role] += 1
            team = e[role + "_team_num"]
            # none before the player's controller exists (a bot joining)
            T.check(team in (None, 0, 1, 2, 3) and (team is None or want[0] is not None),
                    "%s: %s at %d: %s_team_num %r" % (tag, e["name"], e["tick"], role, team))
            n["teams"] = n.get("teams", 0) + (team in (2, 3))
    T.check(bad == 0 and n["user"] > 10 and n["attacker"] > 0 and n.get("teams", 0) > 10,
            "%s: every userid/attacker/assister names the reference's player (%s)" % (tag, n))
    if tag == "14090-cs-italy":
        deaths = [e for e in evs if e["name"] == "player_death"]
        T.check(len(deaths) == 2 and all(e["assister_name"] is None and e["assister_team_num"] is None
                                         for e in deaths), "14090: assister 65535 names nobody")
        # the events mode: names and SteamIDs from userinfo, no team
        small = events(["--small", path])
        T.check(len(small) == len(evs), "14090: --small has the same events")
        T.check(all(s.get(r + "_name") == e.get(r + "_name") and s.get(r + "_steamid") == e.get(r + "_steamid")
                    and s.get(r + "_team_num") is None
                    for s, e in zip(small, evs) for _, r in ROLES if r + "_name" in e),
                "14090: --small names the same players from userinfo, without teams")
        # csv: the json column carries them
        rc, out, _ = T.run(["events", "--format", "csv", path])
        rows = [json.loads(r["json"]) for r in csv.DictReader(io.StringIO(out)) if r["name"] == "player_death"]
        T.check(rc == 0 and [r["user_name"] for r in rows] == [e["user_name"] for e in deaths],
                "14090: events --format csv carries user_name")
        # a cut demo: the events before the cut, named as in the whole file
        data = open(path, "rb").read()
        cut = T.write("cut.dem", data[: len(data) * 2 // 3])
        rc, out, err = T.run(["events", "--json", cut])
        part = [json.loads(l) for l in out.splitlines()]
        T.check(rc == 2 and 0 < len(part) < len(evs) and part == evs[: len(part)],
                "14090 cut: its events and players are the whole file's first ones, exit 2")

# Dota 2: chat's source_player_id is a player id
path = os.path.join(S2, "dota2_haste-nekit-pov.dem")
gem = json.load(open(os.path.join(CORPUS, "peers", "dota2_haste-nekit-pov.dem.s2-gem.json")))
by_id = [p["name"] for p in gem["summary"]["players"]]
xuid = {u["name"]: u["xuid"] for u in uiref.userinfo(path).values()}
chat = [e for e in events([path]) if e["type"] == "chat"]
T.check(len(chat) == len(gem["summary"]["chat"]) > 0, "dota: the chat lines gem-dota has")
for c in chat:
    name = by_id[c["keys"]["source_player_id"]]
    T.check(c.get("source_player_name") == name and c.get("source_player_steamid") == xuid[name]
            and c.get("source_player_team_num") in (2, 3),
            "dota: chat at %d from player %d is %s (gem-dota), SteamID from userinfo"
            % (c["tick"], c["keys"]["source_player_id"], name))
sys.exit(T.finish())
EOF
