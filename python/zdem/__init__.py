"""zdem: game demo files as pandas DataFrames.

Source 2 (CS2, Dota 2, Deadlock):
    zdem.parse_header(path)                       one row: map, build, ticks, ...
    zdem.parse_events(path, names=None)           game events, chat, combat log
    zdem.parse_ticks(path, props, ticks=None, classes=None)
                                                  one row per tick and player
    zdem.parse_players(path)                      one row per player
    zdem.parse_event(path, name, player=[...], other=[...])
                                                  one event with the players'
                                                  and the game's props
    zdem.parse_player_info(path)                  slot, userid, steamid, name,
                                                  team, controller, pawn
    zdem.list_game_events(path)                   the event names in the demo
Quake III: zdem.q3.obituaries(path), chat(path), scores(path), ticks(...)
Teeworlds: zdem.tw.chat(path), kills(path), players(path), ticks(...)
Many demos: zdem.dask.read_events(paths), zdem.dask.read_ticks(paths, props)

Everything is decoded by the C library (libzdem.so) into column chunks that
become numpy arrays whole. A damaged or truncated file raises DemoError,
whose .data holds everything read before the fault and .offset where it is.
"""
import os
import threading

import numpy as np

from ._lib import DemoError, ffi, lib, Mapped, Table, arena, strings, finish, S2_STATE_BYTES

__all__ = ["DemoError", "parse_header", "parse_events", "parse_ticks", "parse_players",
           "parse_event", "parse_player_info", "list_game_events", "q3", "tw", "dask"]


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
    """Game events, chat lines and combat-log entries: tick, type, event_name,
    one column per key (demoparser2's parse_events with every event, or
    those in names), then for each player the event names (userid,
    attacker, assister, victim, their _pawn handles, entity indexes, chat's
    speaker, Dota's player ids) <role>_name, <role>_steamid and
    <role>_team_num at the event's tick."""
    f = Mapped(path)
    t = Table(max_cols=512)
    m, a = _s2_arena()
    err = ffi.new("zdem_error *")
    if isinstance(names, str):
        names = [names]
    arr, keep = strings(list(names) if names is not None else [])
    st = lib.zdem_s2_rows_events(f.ptr, f.size, a, len(m), arr if names is not None else ffi.NULL,
                                 len(keep), _seed(), t.t, err)
    return finish(f.path, st, err, t, ["tick", "type", "event_name"])


def parse_ticks(path, props, ticks=None, classes=None):
    """One row per tick and player (or per entity of each class in
    classes) with the properties props: dotted names as `zdem entities`
    prints them, or demoparser2's player names (X, Y, Z, pitch, yaw,
    health, team_num, name, steamid, balance, active_weapon, ...).
    ticks: only these ticks. Columns: tick, entity, then props (a vector
    property without ".N": one column per component)."""
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
    return _lists(finish(f.path, st, err, t, ["tick", "entity"] + [p for p in props]))


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
    """The state arena for a whole-file run (head bytes of the rows' own
    first), kept per thread: the pages a run touched stay mapped for the
    next, which saves the page faults of a fresh mapping on every call
    (about a third of a short demo's time). The library initializes what
    it uses; a mapping is never shared by two threads."""
    size = head + lib.zdem_s2_rows_fixed_size() + S2_STATE_BYTES
    cached = getattr(_ARENAS, "arena", None)
    if cached is None or len(cached[0]) < size:
        cached = arena(size)
        _ARENAS.arena = cached
    return cached


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
    demoparser2 leaves them; parse_events keeps them."""
    names = [name] if isinstance(name, str) else list(name)
    player = [player] if isinstance(player, str) else list(player or [])
    other = [other] if isinstance(other, str) else list(other or [])
    f = Mapped(path)
    t = Table(max_cols=512 + 8 * 4 * (3 + len(player)) + 2 * len(other))
    narr, nkeep = strings(names)
    parr, pkeep = strings(player)
    oarr, okeep = strings(other)
    c = ffi.new("zdem_s2_event_rows_config *")
    c.names, c.nnames = narr, len(names)
    c.player_props, c.nplayer = parr, len(player)
    c.other_props, c.nother = oarr, len(other)
    c.fold_player_keys = 1
    m, a = _state_arena(lib.zdem_s2_rows_event_size(c))
    err = ffi.new("zdem_error *")
    st = lib.zdem_s2_rows_event(f.ptr, f.size, a, len(m), c, _seed(), t.t, err)
    df = _lists(finish(f.path, st, err, t, ["tick", "event_name"]))
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
    f = Mapped(path)
    t = Table(max_cols=16, rows=256, pool=1 << 16)
    m, a = _state_arena(1 << 20)
    err = ffi.new("zdem_error *")
    st = lib.zdem_s2_rows_players(f.ptr, f.size, a, len(m), _seed(), t.t, err)
    return finish(f.path, st, err, t, ["slot", "userid", "steamid", "name", "team_number",
                                       "controller_entity", "pawn_entity"])


def list_game_events(path):
    """The names of the events in the demo, in the order they first come
    (demoparser2's listGameEvents: game events, server_cvar, chat ...)."""
    f = Mapped(path)
    t = Table(max_cols=4, rows=1024, pool=1 << 16)
    m, a = _state_arena(1 << 20)
    err = ffi.new("zdem_error *")
    st = lib.zdem_s2_rows_event_names(f.ptr, f.size, a, len(m), _seed(), t.t, err)
    df = finish(f.path, st, err, t, ["event_name"])
    return [] if df.empty else list(df["event_name"])


from . import q3, tw  # noqa: E402  (they use the names above)
