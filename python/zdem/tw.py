"""Teeworlds / DDNet demos (.demo) as DataFrames."""
import numpy as np

from ._lib import ffi, lib, Mapped, Table, arena, strings, finish
from . import _names

OBJECT, CHAT, KILLS, PLAYERS = range(4)


def _run(path, kind, obj=None, props=(), ticks=None, every=0, columns=None):
    f = Mapped(path)
    t = Table(max_cols=8 + len(props))
    m, a = arena(lib.zdem_tw_rows_size())
    err = ffi.new("zdem_error *")
    cfg = ffi.new("zdem_tw_rows_config *")
    arr, keep = strings(list(props))
    oname = ffi.new("char[]", obj.encode()) if obj else ffi.NULL
    cfg.kind = kind
    cfg.object = oname
    cfg.props = arr
    cfg.nprops = len(props)
    cfg.every = every
    if ticks is not None:
        tarr = np.unique(np.asarray(list(ticks), dtype=np.int32))
        cfg.ticks = ffi.from_buffer("int32_t[]", tarr)
        cfg.nticks = len(tarr)
    st = lib.zdem_tw_rows_run(a, len(m), cfg, f.ptr, f.size, t.t, err)
    _names.check(st, err, "zdem.tw.list_props(path) lists the fields")
    if st == 10 and err.offset == 0 and ffi.string(err.msg).startswith(b"tw rows"):
        raise ValueError(ffi.string(err.msg).decode())
    return finish(f.path, st, err, t, columns)


def chat(path):
    """tick, team, client_id, name, text (client_id -1: the server)."""
    return _run(path, CHAT, columns=["tick", "team", "client_id", "name", "text"])


def kills(path):
    """tick, killer, killer_name, victim, victim_name, weapon, mode_special."""
    return _run(path, KILLS, columns=["tick", "killer", "killer_name", "victim", "victim_name",
                                      "weapon", "mode_special"])


def players(path):
    """client_id, name, clan, country, first_tick, last_tick: every client
    seen in the snapshots' client_info items (the last name seen)."""
    return _run(path, PLAYERS, columns=["client_id", "name", "clan", "country", "first_tick", "last_tick"])


def ticks(path, props, obj="character", ticks=None, every=0):
    """A snapshot object's fields per snapshot: tick, entity (the item id:
    the client id for characters and players), then props (x, y, vel_x,
    health, armor, weapon; player: score, team, latency)."""
    if isinstance(props, str):
        props = [props]
    return _run(path, OBJECT, obj, props, ticks, every, ["tick", "entity"])


def list_props(path=None, cls=None):
    """Every field name ticks accepts: class (the snapshot object, as obj=
    takes it; "player" is player_info), name, type. The schema's (the same
    for every file: path is there for the same call as zdem.list_props)."""
    return _names.list_props_teeworlds(cls)
