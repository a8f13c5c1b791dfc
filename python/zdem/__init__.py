"""zdem: game demo files as pandas DataFrames.

Source 2 (CS2, Dota 2, Deadlock):
    zdem.parse_header(path)                       one row: map_name, build, ticks, ...
    zdem.parse_events(path, names=None)           game events, chat, combat log
    zdem.parse_ticks(path, props, ticks=None, every=None, classes=None, max_rows=None)
                                                  one row per tick and player
    zdem.parse_players(path)                      one row per player
    zdem.list_props(path, cls=None)               every name parse_ticks accepts
    zdem.parse_event(path, name, player=[...], other=[...])
                                                  one event with the players'
                                                  and the game's props
    zdem.parse_player_info(path)                  slot, userid, steamid, name,
                                                  team, controller, pawn
    zdem.list_game_events(path)                   the event names in the demo
    zdem.stream_events(source)                    events as they arrive: a broadcast
                                                  URL or directory, a growing file
Quake III: zdem.q3.header, players, obituaries, chat, scores, ticks, list_props
Teeworlds: zdem.tw.header, players, chat, kills, ticks, list_props
An unknown property, class, field or event name raises ValueError naming
it and the closest valid names.
Many demos: zdem.dask.read_events(paths), zdem.dask.read_ticks(paths, props)

Everything is decoded by the C library (libzdem.so, inside the package)
into column chunks that become numpy arrays whole. A damaged or truncated
file raises DemoError, whose .data holds everything read before the fault
and .offset where it is; more rows than max_rows raise RowLimitError (a
DemoError) with the first max_rows in .data. Every call returns the memory
it took (file mapping, parser arena, table) before it returns.
"""
import os
import threading

import numpy as np

from ._lib import check_props as _check_props
from ._lib import (DemoError, RowLimitError, ffi, lib, Mapped, Table, Run, Arena, arena, strings,
                   int32_array, finish, S2_STATE_BYTES, VERSION)

from ._stream import stream_events

__version__ = VERSION

__all__ = ["DemoError", "RowLimitError", "parse_header", "parse_events", "parse_ticks",
           "parse_players", "parse_event", "parse_player_info", "list_game_events",
           "list_props", "stream_events", "q3", "tw", "dask", "__version__"]


def __dir__():
    # the public names only (ffi, lib, np, ... stay importable, not listed)
    return sorted(__all__)


def __getattr__(name):
    # zdem.dask needs dask: imported when first used, not with zdem
    if name == "dask":
        import importlib
        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'zdem' has no attribute %r" % name)


def _seed():
    # random per run, as the CLI: no file can count on colliding hash keys
    return int.from_bytes(os.urandom(8), "little") | 1


def _s2_arena_size():
    return lib.zdem_s2_rows_fixed_size() + S2_STATE_BYTES


def _s2_arena():
    return arena(_s2_arena_size())


def _listify(names):
    if names is None:
        return None
    return [names] if isinstance(names, str) else list(names)


HEADER_COLUMNS = [("map_name", "object"), ("server_name", "object"), ("client_name", "object"),
                  ("game_directory", "object"), ("demo_file_stamp", "object"),
                  ("demo_version_name", "object"), ("demo_version_guid", "object"),
                  ("addons", "object"), ("game", "object"), ("network_protocol", "int64"),
                  ("build_num", "int64"), ("fullpackets_version", "int64"),
                  ("server_start_tick", "int64"), ("allow_clientside_entities", "bool"),
                  ("allow_clientside_particles", "bool"), ("playback_ticks", "int64"),
                  ("playback_frames", "int64"), ("playback_time", "float64")]
EVENT_COLUMNS = [("tick", "int64"), ("type", "object"), ("event_name", "object")]


def parse_header(path):
    """One row: the file header's fields (map_name, server_name, build_num,
    network_protocol, ...) and the file info's playback_ticks/frames/time."""
    with Run(path, max_cols=64, rows=4, pool=1 << 16, columns=HEADER_COLUMNS) as r:
        mem, size = r.arena(_s2_arena_size())
        return r.finish(lib.zdem_s2_rows_header(r.file, r.size, mem, size, r.table, r.err))


def parse_events(path, names=None):
    """Game events, chat lines and combat-log entries: tick, type
    (game_event, chat, combat_log), event_name, one column per key
    (demoparser2's parse_events with every event, or those in names: event
    names, or a type: game_event, chat, combat_log), then for each player
    the event names (userid, attacker, assister, victim, their _pawn
    handles, entity indexes, chat's speaker, Dota's player ids)
    <role>_name, <role>_steamid and <role>_team_num at the event's tick. A
    name no event of the demo can have raises ValueError (checked once its
    game event list is read)."""
    names = _listify(names)
    with Run(path, max_cols=512, columns=EVENT_COLUMNS) as r:
        mem, size = r.arena(_s2_arena_size())
        arr, keep = strings(names or [])
        st = lib.zdem_s2_rows_events(r.file, r.size, mem, size, arr if names is not None else ffi.NULL,
                                     len(keep), _seed(), r.table, r.err)
        _names.check(st, r.err)
        return r.finish(st)


def parse_ticks(path, props, ticks=None, every=None, classes=None, max_rows=None):
    """One row per tick and player (or per entity of each class in
    classes) with the properties props: dotted names as `zdem entities`
    prints them, or demoparser2's player names (X, Y, Z, pitch, yaw,
    health, team_num, name, steamid, balance, active_weapon, ...).
    ticks: only these ticks; every: only ticks that are multiples of it;
    max_rows: past that many rows raise RowLimitError (its .data: the
    first max_rows rows). Columns: tick, entity, then props (a vector
    property without ".N": one column per component). list_props(path)
    lists the names; an unknown one (or class) raises ValueError, checked
    when the demo's classes are read, at its start."""
    props = _listify(props)
    if classes is None:
        return _ticks(path, props, ticks, every, None, max_rows)
    import pandas as pd
    frames = []
    for c in _listify(classes):
        try:
            df = _ticks(path, props, ticks, every, c, max_rows)
        except RowLimitError as e:
            e.data.insert(2, "class", c)
            raise
        df.insert(2, "class", c)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True).sort_values(["tick", "entity"], kind="stable", ignore_index=True)
    if max_rows is not None and len(out) > max_rows:
        raise RowLimitError(os.fspath(path), 0, max_rows, out.iloc[:max_rows].copy())
    return out


def _ticks(path, props, ticks, every, class_name, max_rows):
    _check_props(props, lib.ZDEM_S2_TICKS_MAX_PROPS)
    columns = [("tick", "int64"), ("entity", "int64")] + [(p, None) for p in props]
    with Run(path, max_cols=2 + 4 * len(props), columns=columns, max_rows=max_rows) as r:
        mem, size = r.arena(_s2_arena_size())
        arr, keep = strings(props)
        cfg = ffi.new("zdem_s2_ticks_config *")
        cfg.props = arr
        cfg.nprops = len(props)
        cname = ffi.new("char[]", class_name.encode()) if class_name else ffi.NULL
        cfg.class_name = cname
        cfg.every = int(every or 0)
        if ticks is not None:
            cfg.ticks, cfg.nticks, tick_arr = int32_array(ticks)
            if not cfg.nticks:
                return r.finish(0)  # no tick asked: no rows
        st = lib.zdem_s2_rows_ticks(r.file, r.size, mem, size, cfg, _seed(), r.table, r.err)
        _names.check(st, r.err, "zdem.list_props(path) lists the names")
        return _lists(r.finish(st))


PLAYER_COLUMNS = [("slot", "int64"), ("name", "object"), ("team", "int64"), ("steamid", "uint64"),
                  ("entity", "int64"), ("first_tick", "int64"), ("last_tick", "int64")]


def parse_players(path):
    """One row per player (a name and SteamID) seen in the tick rows, in
    the order they appear: slot (the controller's entity index - 1, as the
    userinfo table numbers its entries), name, team (team_num, the last
    seen), steamid, entity (the pawn, the last seen), first_tick,
    last_tick."""
    import pandas as pd
    df = parse_ticks(path, ["name", "steamid", "team_num", "m_hController"])
    if df.empty:
        return pd.DataFrame({c: np.empty(0, dtype=d) for c, d in PLAYER_COLUMNS})
    # a player: a (name, steamid) pair; rows come in tick order, so its
    # first row has its first tick and its last row the rest (numpy on
    # codes: a groupby costs more than the parse on a small demo)
    names = pd.factorize(df["name"])[0]
    sids = pd.factorize(df["steamid"])[0]
    key = names.astype(np.int64) * (int(sids.max()) + 2) + sids
    _, first = np.unique(key, return_index=True)
    _, last = np.unique(key[::-1], return_index=True)
    last = len(key) - 1 - last
    order = np.argsort(first, kind="stable")
    first, last = first[order], last[order]
    # the pawn's handle to its controller: the low 14 bits are its index
    # (all 24 bits set: no controller); a player's first valid one
    h = df["m_hController"]
    if h.dtype == object or h.isna().all():
        slot = pd.array([None] * len(first), dtype="Int64")
    else:
        hv = h.astype("Int64").fillna(0xFFFFFF).to_numpy(np.int64)
        valid = (hv & 0xFFFFFF) != 0xFFFFFF
        ukey, at = np.unique(key[valid], return_index=True)
        slots = dict(zip(ukey.tolist(), ((hv[valid][at] & 0x3FFF) - 1).tolist()))
        got = [slots.get(k) for k in key[first].tolist()]
        slot = np.array(got, dtype=np.int64) if None not in got else pd.array(got, dtype="Int64")
    return pd.DataFrame({"slot": slot, "name": df["name"].array[first], "team": df["team_num"].array[last],
                         "steamid": df["steamid"].array[last], "entity": df["entity"].array[last],
                         "first_tick": df["tick"].array[first], "last_tick": df["tick"].array[last]})


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


# ---- events with players (demoparser2's parseEvent) --------------------------

ffi.cdef(r"""
typedef struct zdem_s2_event_rows_config {
    const char *const *names;
    uint32_t nnames;
    const char *const *player_props;
    uint32_t nplayer;
    const char *const *other_props;
    uint32_t nother;
    int fold_player_keys;
} zdem_s2_event_rows_config;
size_t zdem_s2_rows_event_size(const zdem_s2_event_rows_config *c);
zdem_status zdem_s2_rows_event(const uint8_t *file, size_t size, void *arena, size_t arena_size,
                               const zdem_s2_event_rows_config *c, uint64_t hash_seed,
                               zdem_table *t, zdem_error *err);
zdem_status zdem_s2_rows_players(const uint8_t *file, size_t size, void *arena,
                                 size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                 zdem_error *err);
zdem_status zdem_s2_rows_event_names(const uint8_t *file, size_t size, void *arena,
                                     size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                     zdem_error *err);
""")

_LIST_PROPS = ("inventory",)  # given by the library as names joined by ","
_ARENAS = threading.local()


def _state_arena(head):
    """(pointer, size) of the state arena for a whole-file run (head bytes
    of the rows' own first), one per thread, reused by the next call: the
    pages a run touched stay mapped, which saves a fresh mapping's page
    faults on every call (about a third of a short demo's time). Its size
    is fixed (the largest asked for), so memory does not grow with calls;
    the library initializes what it uses; a mapping is never shared by two
    threads."""
    size = head + lib.zdem_s2_rows_fixed_size() + S2_STATE_BYTES
    cached = getattr(_ARENAS, "arena", None)
    if cached is None or cached.size < size:
        if cached is not None:
            cached.close()
        cached = Arena(size)
        _ARENAS.arena = cached
    return cached.ptr, cached.size


def _lists(df):
    """List-valued props (inventory): the library's "a,b,c" as lists."""
    for c in df.columns:
        if any(c == p or c.endswith("_" + p) for p in _LIST_PROPS):
            df[c] = [(v.split(",") if v else []) if isinstance(v, str) else v for v in df[c]]
    return df


def parse_event(path, name, player=None, other=None):
    """One event (or a list of names) as demoparser2's parseEvent gives it:
    tick, event_name, the event's keys, then for each player it names
    <role>_name, <role>_steamid, <role>_team_num and <role>_<prop> for each
    name in player (read at the event's tick as parse_ticks reads them:
    "X", "health", "active_weapon_name", "CCSPlayerPawn.m_iHealth", ...),
    then each name in other: a game-rules prop as <prop>
    ("total_rounds_played"), a team prop as t_<prop> and ct_<prop>
    ("team_rounds_total"). The keys the player columns stand for (userid,
    attacker, assister, victim and their _pawn) are left out, as
    demoparser2 leaves them; parse_events keeps them. An unknown event or
    property name raises ValueError."""
    names = _listify(name)
    player = _listify(player) or []
    other = _listify(other) or []
    _check_props(player, lib.ZDEM_S2_TICKS_MAX_PROPS)
    _check_props(other, lib.ZDEM_S2_TICKS_MAX_PROPS)
    with Run(path, max_cols=512 + 8 * 4 * (3 + len(player)) + 2 * len(other),
             columns=[("tick", "int64"), ("event_name", "object")]) as r:
        narr, nkeep = strings(names)
        parr, pkeep = strings(player)
        oarr, okeep = strings(other)
        c = ffi.new("zdem_s2_event_rows_config *")
        c.names, c.nnames = narr, len(names)
        c.player_props, c.nplayer = parr, len(player)
        c.other_props, c.nother = oarr, len(other)
        c.fold_player_keys = 1
        mem, size = _state_arena(lib.zdem_s2_rows_event_size(c))
        st = lib.zdem_s2_rows_event(r.file, r.size, mem, size, c, _seed(), r.table, r.err)
        _names.check(st, r.err, "zdem.list_props(path) lists the names")
        df = _lists(r.finish(st))
    if "hitgroup" in df.columns:  # demoparser2 names the hit group
        df["hitgroup"] = [_HIT_GROUPS.get(v, str(v)) if isinstance(v, (int, np.integer)) else v
                          for v in df["hitgroup"]]
    return df


# the game's HITGROUP_* names, as demoparser2 gives them
_HIT_GROUPS = {0: "generic", 1: "head", 2: "chest", 3: "stomach", 4: "left_arm",
               5: "right_arm", 6: "left_leg", 7: "right_leg", 8: "neck", 10: "gear"}


def parse_player_info(path):
    """One row per player as the demo leaves it (SourceTV left out): slot,
    userid, steamid, name, team_number, controller_entity, pawn_entity
    (parse_ticks' entity), player_id (Dota), is_bot. Joins with
    parse_events (<role>_steamid, <role>_name; CS2's userid is the slot)
    and parse_ticks (entity, steamid, name)."""
    with Run(path, max_cols=16, rows=256, pool=1 << 16,
             columns=["slot", "userid", "steamid", "name", "team_number",
                      "controller_entity", "pawn_entity"]) as r:
        mem, size = _state_arena(1 << 20)
        return r.finish(lib.zdem_s2_rows_players(r.file, r.size, mem, size, _seed(), r.table, r.err))


def list_game_events(path):
    """The names of the events in the demo, in the order they first come
    (demoparser2's listGameEvents: game events, server_cvar, chat ...)."""
    with Run(path, max_cols=4, rows=1024, pool=1 << 16, columns=["event_name"]) as r:
        mem, size = _state_arena(1 << 20)
        df = r.finish(lib.zdem_s2_rows_event_names(r.file, r.size, mem, size, _seed(), r.table, r.err))
    return [] if df.empty else list(df["event_name"])


from . import _names  # noqa: E402
from . import q3, tw  # noqa: E402  (they use the names above)
