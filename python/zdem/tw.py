"""Teeworlds / DDNet demos (.demo) as DataFrames. Player slots are the
game's client ids."""
import numpy as np

from ._lib import ffi, lib, Run, DemoError, strings, int32_array
from ._lib import check_props as _check_props
from . import _names

__all__ = ["header", "players", "chat", "kills", "ticks", "list_props"]

OBJECT, CHAT, KILLS, PLAYERS, HEADER = range(5)


def __dir__():
    return sorted(__all__)


def _run(path, kind, obj=None, props=(), ticks=None, every=0, columns=None, max_rows=None):
    _check_props(props, lib.ZDEM_TW_ROWS_MAX_PROPS)
    with Run(path, max_cols=16 + len(props), columns=columns, max_rows=max_rows) as r:
        mem, size = r.arena(lib.zdem_tw_rows_size())
        cfg = ffi.new("zdem_tw_rows_config *")
        arr, keep = strings(list(props))
        oname = ffi.new("char[]", obj.encode()) if obj else ffi.NULL
        cfg.kind = kind
        cfg.object = oname
        cfg.props = arr
        cfg.nprops = len(props)
        cfg.every = int(every or 0)
        if ticks is not None:
            cfg.ticks, cfg.nticks, tarr = int32_array(ticks)
            if not cfg.nticks:
                return r.finish(0)
        st = lib.zdem_tw_rows_run(mem, size, cfg, r.file, r.size, r.table, r.err)
        _names.check(st, r.err, "zdem.tw.list_props(path) lists the fields")
        if st == 10 and r.err.offset == 0 and ffi.string(r.err.msg).startswith(b"tw rows"):
            raise ValueError(ffi.string(r.err.msg).decode())
        return r.finish(st)


HEADER_COLUMNS = [("version", "int64"), ("net_version", "object"), ("map_name", "object"),
                  ("map_size", "int64"), ("map_crc", "int64"), ("map_sha256", "object"),
                  ("type", "object"), ("length", "int64"), ("timestamp", "object"),
                  ("timeline_markers", "int64"), ("first_tick", "int64"), ("last_tick", "int64")]


def header(path):
    """One row: the demo header (version, net_version, map_name, map_size,
    map_crc, map_sha256 (DDNet; no value without it), type, length in
    seconds, timestamp, timeline_markers: their count) and the tick span of
    the chunks after it (first_tick, last_tick)."""
    return _run(path, HEADER, columns=HEADER_COLUMNS)


PLAYER_COLUMNS = [("slot", "int64"), ("name", "object"), ("team", "int64"), ("clan", "object"),
                  ("country", "int64"), ("first_tick", "int64"), ("last_tick", "int64")]


def players(path):
    """One row per client seen in the snapshots: slot, name, team (of its
    last player_info item: -1 spectators, 0 red / the game, 1 blue), clan,
    country, first_tick, last_tick (names: the last ones seen)."""
    return _run(path, PLAYERS, columns=PLAYER_COLUMNS)


CHAT_COLUMNS = [("tick", "int64"), ("slot", "int64"), ("name", "object"), ("kind", "object"),
                ("text", "object")]
# 0.6: the message's team (DDNet: 2, 3 a whisper sent, received); 0.7: its
# mode less one (0 everyone, 1 the team, 2 a whisper)
_CHAT_KINDS = {0: "chat", 1: "tchat", 2: "whisper", 3: "whisper"}


def _chat_post(df):
    out = df.rename(columns={"client_id": "slot"})
    out["kind"] = np.array([_CHAT_KINDS.get(t, str(t)) for t in df["team"].tolist()], dtype=object)
    return out[[c for c, _ in CHAT_COLUMNS]]


def chat(path):
    """tick, slot (the speaker's; -1: the server), name, kind (chat: to
    everyone, tchat: to the team, as Quake III names them, whisper: to one
    player (0.7, DDNet); another number of the message's team field as its
    digits), text."""
    try:
        return _chat_post(_run(path, CHAT, columns=[("tick", "int64"), ("team", "int64"),
                                                     ("client_id", "int64"), ("name", "object"),
                                                     ("text", "object")]))
    except DemoError as e:
        e.data = _chat_post(e.data)
        raise


def kills(path):
    """tick, killer, killer_name, victim, victim_name (slots and names),
    weapon, mode_special."""
    return _run(path, KILLS, columns=[("tick", "int64"), ("killer", "int64"), ("killer_name", "object"),
                                      ("victim", "int64"), ("victim_name", "object"), ("weapon", "int64"),
                                      ("mode_special", "int64")])


def ticks(path, props, obj="character", ticks=None, every=None, max_rows=None):
    """A snapshot object's fields per snapshot: tick, entity (the item id:
    the client id for characters and players), then props (x, y, vel_x,
    health, armor, weapon; player: score, team, latency). ticks: only
    these ticks; every: ticks that are multiples of it; max_rows: as
    zdem.parse_ticks."""
    props = [props] if isinstance(props, str) else list(props)
    return _run(path, OBJECT, obj, props, ticks, every,
                [("tick", "int64"), ("entity", "int64")] + [(p, None) for p in props], max_rows)


def list_props(path=None, cls=None):
    """Every field name ticks accepts: class (the snapshot object, as obj=
    takes it; "player" is player_info), name, type. The schema of the
    file's protocol (its header's net version: 0.6 and DDNet, or 0.7;
    without a path, 0.6's)."""
    return _names.list_props_teeworlds(cls, path)
