"""Teeworlds / DDNet demos (.demo) as DataFrames."""
from ._lib import ffi, lib, Run, strings, int32_array

__all__ = ["chat", "kills", "players", "ticks"]

OBJECT, CHAT, KILLS, PLAYERS = range(4)


def __dir__():
    return sorted(__all__)


def _run(path, kind, obj=None, props=(), ticks=None, every=0, columns=None, max_rows=None):
    with Run(path, max_cols=8 + len(props), columns=columns, max_rows=max_rows) as r:
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
        if st == 10 and r.err.offset == 0 and ffi.string(r.err.msg).startswith(b"tw rows"):
            raise ValueError(ffi.string(r.err.msg).decode())
        return r.finish(st)


def chat(path):
    """tick, team, client_id, name, text (client_id -1: the server)."""
    return _run(path, CHAT, columns=[("tick", "int64"), ("team", "int64"), ("client_id", "int64"),
                                     ("name", "object"), ("text", "object")])


def kills(path):
    """tick, killer, killer_name, victim, victim_name, weapon, mode_special."""
    return _run(path, KILLS, columns=[("tick", "int64"), ("killer", "int64"), ("killer_name", "object"),
                                      ("victim", "int64"), ("victim_name", "object"), ("weapon", "int64"),
                                      ("mode_special", "int64")])


def players(path):
    """client_id, name, clan, country, first_tick, last_tick: every client
    seen in the snapshots' client_info items (the last name seen)."""
    return _run(path, PLAYERS, columns=[("client_id", "int64"), ("name", "object"), ("clan", "object"),
                                        ("country", "int64"), ("first_tick", "int64"), ("last_tick", "int64")])


def ticks(path, props, obj="character", ticks=None, every=None, max_rows=None):
    """A snapshot object's fields per snapshot: tick, entity (the item id:
    the client id for characters and players), then props (x, y, vel_x,
    health, armor, weapon; player: score, team, latency). ticks: only
    these ticks; every: ticks that are multiples of it; max_rows: as
    zdem.parse_ticks."""
    props = [props] if isinstance(props, str) else list(props)
    return _run(path, OBJECT, obj, props, ticks, every,
                [("tick", "int64"), ("entity", "int64")] + [(p, None) for p in props], max_rows)
