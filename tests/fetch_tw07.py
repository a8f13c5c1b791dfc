#!/usr/bin/env python3
"""Fetches the public Teeworlds 0.7 demos the 0.7 tests read (and the
server logs recorded with them, an independent account of who joined and
what was said) into tests/tw07-demos/ (git-ignored: the files belong to
their repository and are never committed here).

Each file is taken at a fixed commit and checked against the size and
SHA-256 recorded below; a file that differs is refused (removed again).

  tests/fetch_tw07.py                 download from raw.githubusercontent.com
  tests/fetch_tw07.py --mirror DIR    copy from a local clone of the
                                      repository (git cat-file COMMIT:PATH)
  tests/fetch_tw07.py --check         only verify what is there; exit 1 if
                                      a file is missing or differs
  tests/fetch_tw07.py --list          print the table

The demos: ChillerDragon/teeworlds-traffic-dumps, client-side recordings
(cl_auto_demo_record) of the official Teeworlds 0.7.5 client on a 0.7.5
server (TWDEMO v4) and of the official DDNet 19.6 client on a DDNet 19.6
server over the 0.7 protocol (TWDEMO v6), each with the server's log of
the same session (README.md of each dump says how they were made).
"""
import argparse
import hashlib
import os
import subprocess
import sys
import urllib.request

REPO = "ChillerDragon/teeworlds-traffic-dumps"
DEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tw07-demos")

# local name, repository, commit, path, size, sha256
FILES = [
    ("tw075_dm1-join-chat-walk-disconnect.demo", REPO,
     "43096071e183954cbc4f1020ac3a783c301110c4",
     "dumps/075_tw_dm1_join_chat_walk_disconnect/client.demo", 8996,
     "ab6b5bd402ff362ce4cd5385ff093bd9a9fe7e814ff425966e706b65abfebd27"),
    ("tw075_dm1-join-chat-walk-disconnect.server_log.txt", REPO,
     "43096071e183954cbc4f1020ac3a783c301110c4",
     "dumps/075_tw_dm1_join_chat_walk_disconnect/server_log.txt", 2572,
     "6627e23edf8c8ad1f08fbcdcfde67c8e19f77a7a51b5f2201901fa59165171b9"),
    ("tw075_tinycave-other-player-disconnect.demo", REPO,
     "9fe8cf79307975f34f4fe6968805746f7948ddd3",
     "dumps/075_tw_tinycave_other_player_disconnect/client_bar.demo", 2336,
     "be1394d0055dbb4ba338910ae0f10b820d042e0f8625aadbfef1d67a54c71149"),
    ("tw075_tinycave-other-player-disconnect.server_log.txt", REPO,
     "9fe8cf79307975f34f4fe6968805746f7948ddd3",
     "dumps/075_tw_tinycave_other_player_disconnect/server_log.txt", 4072,
     "6c8e0793d9b52b073d59b3d50cda309d23b747cd70b7b04ae27ed438ee5b794c"),
    ("tw075_tinycave-other-player-join-round-start.demo", REPO,
     "7ed8d9552bb7649d286ff3d7fd365d2d4220f330",
     "dumps/075_tw_tinycave_other_player_join_round_start/client_foo.demo", 2947,
     "3465d3f2493d97c5a3fff167f63a6dbb5012b3cd8690b91d057c6512161588a4"),
    ("tw075_tinycave-other-player-join-round-start.server_log.txt", REPO,
     "7ed8d9552bb7649d286ff3d7fd365d2d4220f330",
     "dumps/075_tw_tinycave_other_player_join_round_start/server_log.txt", 3258,
     "8935120ff2058963ae3d5f270da79ea2a88e33138bc8d21d5ab73e0f9ea97194"),
    ("tw075_tinycave-other-player-respawn.demo", REPO,
     "ae779c1bf143503dcc64a75d2174c0ad023b66f5",
     "dumps/075_tw_tinycave_other_player_respawn/client_bar.demo", 4146,
     "664eba86722a00777b3e4786cff3c1f5f3711e0a67aecfa80590b7264d73cf91"),
    ("tw075_tinycave-other-player-respawn.server_log.txt", REPO,
     "ae779c1bf143503dcc64a75d2174c0ad023b66f5",
     "dumps/075_tw_tinycave_other_player_respawn/server_log.txt", 3090,
     "ad5d981af1a540a7bb34e5df27364005994282c7481a932904e70abdd3170041"),
    ("ddnet196-07_tinycave-other-player-join.demo", REPO,
     "73413b49bc0100b3eb42097e58758ce6ffcae231",
     "dumps/075_ddnet_tinycave_other_player_join/client_foo.demo", 3398,
     "69113839251611d7d583907eacc6c04493bb89420e65772c8a590058b7052cbc"),
    ("ddnet196-07_tinycave-other-player-join.server_log.txt", REPO,
     "73413b49bc0100b3eb42097e58758ce6ffcae231",
     "dumps/075_ddnet_tinycave_other_player_join/server_log.txt", 2101,
     "2e44ede24215ba901e93f10f4795a52c531be97279c3e77f934d1e42f42ac827"),
]


def verify(data, size, sha):
    return len(data) == size and hashlib.sha256(data).hexdigest() == sha


def get(entry, mirror):
    name, repo, commit, path, size, sha = entry
    if mirror:
        return subprocess.run(["git", "--git-dir", mirror, "cat-file", "blob",
                               "%s:%s" % (commit, path)],
                              check=True, stdout=subprocess.PIPE).stdout
    url = "https://raw.githubusercontent.com/%s/%s/%s" % (repo, commit, path)
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", help="git directory of a clone of %s" % REPO)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--dest", default=DEST)
    a = ap.parse_args()
    if a.list:
        for e in FILES:
            print("\t".join(str(x) for x in e))
        return 0
    os.makedirs(a.dest, exist_ok=True)
    bad = 0
    for e in FILES:
        name, repo, commit, path, size, sha = e
        out = os.path.join(a.dest, name)
        if os.path.exists(out):
            with open(out, "rb") as f:
                if verify(f.read(), size, sha):
                    print("ok      %s" % name)
                    continue
            print("differs %s (%s@%s:%s)" % (name, repo, commit[:12], path))
            if a.check:
                bad += 1
                continue
        elif a.check:
            print("missing %s" % name)
            bad += 1
            continue
        try:
            data = get(e, a.mirror)
        except (OSError, subprocess.CalledProcessError) as ex:
            print("FAILED  %s: %s" % (name, ex))
            bad += 1
            continue
        if not verify(data, size, sha):
            print("REFUSED %s: %d bytes, sha256 %s (want %d, %s)"
                  % (name, len(data), hashlib.sha256(data).hexdigest(), size, sha))
            bad += 1
            continue
        with open(out + ".part", "wb") as f:
            f.write(data)
        os.replace(out + ".part", out)
        print("fetched %s" % name)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
