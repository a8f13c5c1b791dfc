"""zdem: game demo files as pandas DataFrames.

Source 2 (CS2, Dota 2, Deadlock):
    zdem.parse_header(path)                       one row: map, build, ticks, ...
    zdem.parse_events(path, names=None)           game events, chat, combat log
    zdem.parse_ticks(path, props, ticks=None, classes=None)
                                                  one row per tick and player
    zdem.parse_players(path)                      one row per player
    zdem.list_props(path, cls=None)               every name parse_ticks accepts
Quake III: zdem.q3.obituaries(path), chat(path), scores(path), ticks(...), list_props(...)
Teeworlds: zdem.tw.chat(path), kills(path), players(path), ticks(...), list_props(...)
An unknown property, class, field or event name raises ValueError naming
it and the closest valid names.
Many demos: zdem.dask.read_events(paths), zdem.dask.read_ticks(paths, props)

Everything is decoded by the C library (libzdem.so) into column chunks that
become numpy arrays whole. A damaged or truncated file raises DemoError,
whose .data holds everything read before the fault and .offset where it is.
"""
import os

import numpy as np

from ._lib import DemoError, ffi, lib, Mapped, Table, arena, strings, finish, S2_STATE_BYTES
from ._lib import check_props as _check_props

__all__ = ["DemoError", "parse_header", "parse_events", "parse_ticks", "parse_players",
           "list_props", "q3", "tw", "dask"]


def _seed():
    # random per run, as the CLI: no file can count on colliding hash keys
    return int.from_bytes(os.urandom(8), "little") | 1


def _s2_arena():
    return arena(lib.zdem_s2_rows_fixed_size() + S2_STATE_BYTES)


def parse_header(path):
    """One row: the file header's fields and the file info's playback
    ticks/frames/time."""
    f = Mapped(path)
    t = Table(max_cols=64, rows=4, pool=1 << 16)
    m, a = _s2_arena()
    err = ffi.new("zdem_error *")
    st = lib.zdem_s2_rows_header(f.ptr, f.size, a, len(m), t.t, err)
    return finish(f.path, st, err, t)


def parse_events(path, names=None):
    """Game events, chat lines and combat-log entries: tick, type, event_name and
    one column per key (demoparser2's parse_events with every event, or
    those in names: event names, or a type: game_event, chat, combat_log).
    A name no event of the demo can have raises ValueError (checked once
    its game event list is read)."""
    f = Mapped(path)
    t = Table(max_cols=512)
    m, a = _s2_arena()
    err = ffi.new("zdem_error *")
    if isinstance(names, str):
        names = [names]
    arr, keep = strings(list(names) if names is not None else [])
    st = lib.zdem_s2_rows_events(f.ptr, f.size, a, len(m), arr if names is not None else ffi.NULL,
                                 len(keep), _seed(), t.t, err)
    _names.check(st, err)
    return finish(f.path, st, err, t, ["tick", "type", "event_name"])


def parse_ticks(path, props, ticks=None, classes=None):
    """One row per tick and player (or per entity of each class in
    classes) with the properties props: dotted names as `zdem entities`
    prints them, or demoparser2's player names (X, Y, Z, pitch, yaw,
    health, team_num, name, steamid, balance, active_weapon, ...).
    ticks: only these ticks. Columns: tick, entity, then props (a vector
    property without ".N": one column per component). list_props(path)
    lists the names; an unknown one (or class) raises ValueError, checked
    when the demo's classes are read, at its start."""
    if isinstance(props, str):
        props = [props]
    if classes is None:
        return _ticks(path, props, ticks, None)
    if isinstance(classes, str):
        classes = [classes]
    import pandas as pd
    frames = []
    for c in classes:
        df = _ticks(path, props, ticks, c)
        df.insert(2, "class", c)
        frames.append(df)
    return pd.concat(frames, ignore_index=True).sort_values(["tick", "entity"], kind="stable", ignore_index=True)


def _ticks(path, props, ticks, class_name):
    _check_props(props, lib.ZDEM_S2_TICKS_MAX_PROPS)
    f = Mapped(path)
    t = Table(max_cols=2 + 4 * len(props))
    m, a = _s2_arena()
    err = ffi.new("zdem_error *")
    arr, keep = strings(props)
    cfg = ffi.new("zdem_s2_ticks_config *")
    cfg.props = arr
    cfg.nprops = len(props)
    cname = ffi.new("char[]", class_name.encode()) if class_name else ffi.NULL
    cfg.class_name = cname
    tick_arr = None
    if ticks is not None:
        tick_arr = np.unique(np.asarray(list(ticks), dtype=np.int32))
        cfg.ticks = ffi.from_buffer("int32_t[]", tick_arr)
        cfg.nticks = len(tick_arr)
    st = lib.zdem_s2_rows_ticks(f.ptr, f.size, a, len(m), cfg, _seed(), t.t, err)
    _names.check(st, err, "zdem.list_props(path) lists the names")
    return finish(f.path, st, err, t, ["tick", "entity"] + [p for p in props])


def parse_players(path):
    """One row per player seen (controller): entity (its pawn), name,
    steamid, team_num, first_tick, last_tick."""
    df = parse_ticks(path, ["name", "steamid", "team_num"])
    if df.empty:
        return df.assign(first_tick=[], last_tick=[])
    g = df.groupby(["name", "steamid"], sort=False, dropna=False)
    out = g.agg(entity=("entity", "last"), team_num=("team_num", "last"),
                first_tick=("tick", "min"), last_tick=("tick", "max")).reset_index()
    return out[["entity", "name", "steamid", "team_num", "first_tick", "last_tick"]]


def list_props(path, cls=None):
    """Every name parse_ticks accepts for the file, one row each: class,
    name, type (the field's type) and reads (for demoparser2's names: the
    property they stand for; class is then missing). cls None: the names of
    player rows (demoparser2's, then the player controller and pawn
    classes' properties); a class name: those of parse_ticks(classes=cls);
    "*": every class. Names are dotted as `zdem entities` prints them: a
    vector also per component (NAME.0 ..), a fixed array per element, a
    variable-length array as its count NAME and its element NAME.0 (any
    index reads). Only the demo's start is read (up to its class list).
    A Quake III or Teeworlds file gives zdem.q3.list_props /
    zdem.tw.list_props. An unknown class raises ValueError."""
    return _names.list_props(path, cls)


from . import _names  # noqa: E402
from . import q3, tw  # noqa: E402  (they use the names above)
