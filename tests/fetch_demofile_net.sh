#!/bin/sh
# Fetches DemoFile.Net's published reading of the two Deadlock HTTP
# broadcast fixtures (saul/demofile-net, MIT) into tests/reference/
# (git-ignored: a reference is read at test time, never committed).
#   src/DemoFile.Test/Snapshots/HttpBroadcast_Deadlock.txt
#       @ 4e34d8f: the fixture DeadlockHttpBroadcast/ (corpus:
#         source2-broadcast/deadlock-demofile-net), unchanged up to 3216ef9;
#       @ 721eecb: DeadlockHttpBroadcast_2025-02-27/ (corpus:
#         source2-broadcast/deadlock-demofile-net-2025-02-27), the one
#         published at fd59701 (the corpus commit).
#   src/DemoFile.Game.Deadlock/Source1GameEvents.Autogen.cs at the same
#       commits: the game events DemoFile.Net has a class for (the only
#       ones its snapshot lists).
# From a local clone when DEMOFILE_NET_GIT names its git directory, else
# from raw.githubusercontent.com. tests/test_live_broadcast.sh skips the
# comparison, saying so, when the files are absent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/reference/demofile-net
mkdir -p "$out"
fetch() { # commit path
    dest=$out/$1/$(basename "$2")
    [ -s "$dest" ] && return 0
    mkdir -p "$out/$1"
    if [ -n "${DEMOFILE_NET_GIT:-}" ]; then
        git --git-dir="$DEMOFILE_NET_GIT" show "$1:$2" > "$dest.tmp"
    else
        curl -fsSL --max-time 60 "https://raw.githubusercontent.com/saul/demofile-net/$1/$2" > "$dest.tmp"
    fi
    mv "$dest.tmp" "$dest"
    echo "fetched $1:$2"
}
for c in 4e34d8fd38966b28ea26f6ebc545d935b13097fb 721eecbae02c3699d4e82f67a230a2d86cf34cf8; do
    fetch $c src/DemoFile.Test/Snapshots/HttpBroadcast_Deadlock.txt
    fetch $c src/DemoFile.Game.Deadlock/Source1GameEvents.Autogen.cs
done
