"""Quake III / Quake Live demos (.dm3, .dm_48, .dm_66 .. .dm_91) as DataFrames.

Names and chat text come without colour codes (^1, OSP's ^xRRGGBB) and
control bytes, as the game shows them; chat keeps the line as sent in raw.
Player slots are the game's client numbers."""
import os
import re

import numpy as np

from ._lib import ffi, lib, Run, strings, int32_array
from ._lib import check_props as _check_props
from . import _names

__all__ = ["header", "players", "obituaries", "chat", "scores", "ticks", "list_props"]

PLAYER, ENTITY, OBITUARY, CHAT, SCORES, HEADER, PLAYERS = range(7)


def __dir__():
    return sorted(__all__)


def _run(path, kind, props=(), ticks=None, every=0, columns=None, max_rows=None):
    _check_props(props, lib.ZDEM_Q3_ROWS_MAX_PROPS)
    with Run(path, max_cols=2 + 16 * max(1, len(props)), columns=columns, max_rows=max_rows) as r:
        mem, size = r.arena(lib.zdem_q3_rows_size())
        cfg = ffi.new("zdem_q3_rows_config *")
        arr, keep = strings(list(props))
        cfg.kind = kind
        cfg.props = arr
        cfg.nprops = len(props)
        cfg.every = int(every or 0)
        cfg.protocol = lib.zdem_q3_protocol_from_path(os.fsencode(r.path))
        if ticks is not None:
            cfg.times, cfg.ntimes, tarr = int32_array(ticks)
            if not cfg.ntimes:
                return r.finish(0)
        st = lib.zdem_q3_rows_run(mem, size, cfg, r.file, r.size, r.table, r.err)
        _names.check(st, r.err, "zdem.q3.list_props(path) lists the fields")
        if st == 10 and r.err.offset == 0 and ffi.string(r.err.msg).startswith(b"q3 rows"):
            raise ValueError(ffi.string(r.err.msg).decode())
        return r.finish(st)


def _map_columns(fn, path, *args, **kw):
    """fn's DataFrame (or a DemoError's .data) rewritten by post."""
    post = kw.pop("post")
    from ._lib import DemoError
    try:
        return post(fn(path, *args, **kw))
    except DemoError as e:
        e.data = post(e.data)
        raise


# ---- colour codes -------------------------------------------------------------

_OSP_HEX = re.compile(r"[0-9A-Fa-f]{6}")


def _clean(s):
    """A name or chat text as the game shows it: colour codes out (^X for
    any X but ^, and OSP's ^xRRGGBB whole), control bytes out."""
    if s is None:
        return None
    out = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "^" and i + 1 < n and s[i + 1] != "^":
            i += 8 if s[i + 1] in "xX" and _OSP_HEX.fullmatch(s, i + 2, i + 8) else 2
            continue
        if c >= " " and c != "\x7f":
            out.append(c)
        i += 1
    return "".join(out)


def _clean_column(col):
    return np.array([_clean(x) if isinstance(x, str) else x for x in col], dtype=object)


# ---- tables ------------------------------------------------------------------

HEADER_COLUMNS = [("gamestate", "int64"), ("protocol", "int64"), ("map_name", "object"),
                  ("gamename", "object"), ("client_num", "int64"), ("snapshots", "int64"),
                  ("first_server_time", "int64"), ("last_server_time", "int64")]


def header(path):
    """One row per gamestate (a demo holds more than one when the map or the
    match changed): gamestate, protocol, map_name, gamename (baseq3, cpma,
    osp, defrag, ...), client_num (the recording player's slot), snapshots,
    first_server_time, last_server_time."""
    return _run(path, HEADER, columns=HEADER_COLUMNS)


PLAYER_COLUMNS = [("gamestate", "int64"), ("slot", "int64"), ("name", "object"), ("team", "int64"),
                  ("first_server_time", "int64"), ("last_server_time", "int64"),
                  ("raw_name", "object")]


def _players_post(df):
    df = df.copy()
    df["raw_name"] = df["name"]
    df["name"] = _clean_column(df["name"])
    return df[[c for c, _ in PLAYER_COLUMNS]]


def players(path):
    """One row per player and stay in a gamestate (a slot that empties, or
    changes its name, starts a new row): gamestate, slot, name, team (the
    last of the stay: 0 free, 1 red, 2 blue, 3 spectators), first_server_time,
    last_server_time (the snapshots the player was in), raw_name (with its
    colour codes)."""
    return _map_columns(_run, path, PLAYERS, columns=PLAYER_COLUMNS, post=_players_post)


OBITUARY_COLUMNS = [("server_time", "int64"), ("gamestate", "int64"), ("attacker", "int64"),
                    ("attacker_name", "object"), ("target", "int64"), ("target_name", "object"),
                    ("mod", "int64"), ("mod_name", "object")]


def _obituaries_post(df):
    df = df.copy()
    df["attacker_name"] = _clean_column(df["attacker_name"])
    df["target_name"] = _clean_column(df["target_name"])
    return df


def obituaries(path):
    """server_time, gamestate, attacker (slot; -1 / 1022: the world),
    attacker_name, target, target_name, mod (means of death, the protocol's
    number), mod_name."""
    return _map_columns(_run, path, OBITUARY, columns=OBITUARY_COLUMNS, post=_obituaries_post)


CHAT_COLUMNS = [("server_time", "int64"), ("gamestate", "int64"), ("command_seq", "int64"),
                ("kind", "object"), ("slot", "int64"), ("name", "object"), ("location", "object"),
                ("text", "object"), ("raw", "object")]
# "NAME\x19: text" (baseq3, OSP, Quake Live, defrag) or CPMA's "NAME^7: ^2text"
_SAY = re.compile(r"(.*?)(?:\x19|\^7): (.*)", re.S)
# "\x19(NAME\x19) (LOCATION)\x19: text", the location left out without one
_TEAM = re.compile(r"\x19\((.*?)\x19\)(?: \((.*?)\))?\x19: (.*)", re.S)
_QL_SLOT = re.compile(r"\d\d ")


def _split_chat(kind, raw, sender, has_slot):
    """(name, location, text) of one line; name None when the line has no
    speaker's part (server messages sent as chat)."""
    if kind == "mm2":
        return _clean(sender), None, _clean(raw)
    body = raw[3:] if has_slot and _QL_SLOT.match(raw) else raw
    m = (_TEAM if kind == "tchat" else _SAY).fullmatch(body)
    if not m:
        return None, None, _clean(raw)
    if kind == "tchat":
        name, loc, text = m.group(1), m.group(2), m.group(3)
    else:
        name, loc, text = m.group(1), None, m.group(2)
    if has_slot and sender is not None:
        name = sender  # Quake Live: the line's name carries the clan tag too
    return _clean(name), _clean(loc), _clean(text)


def _chat_post(df):
    n = len(df)
    names, locs, texts = (np.empty(n, dtype=object) for _ in range(3))
    kinds, raws = df["kind"].tolist(), df["text"].tolist()
    senders = df["sender"].tolist() if "sender" in df else [None] * n
    slots = df["slot"] if "slot" in df else None
    has = (~slots.isna()).tolist() if slots is not None else [False] * n
    c_locs = df["location"].tolist() if "location" in df else [None] * n
    for i in range(n):
        names[i], locs[i], texts[i] = _split_chat(kinds[i], raws[i], senders[i], has[i])
        if kinds[i] == "mm2":
            locs[i] = _clean(c_locs[i])
    out = df.copy()
    out["raw"] = out["text"]
    out["name"], out["location"], out["text"] = names, locs, texts
    return out[[c for c, _ in CHAT_COLUMNS]]


def chat(path):
    """server_time, gamestate, command_seq, kind (the command: chat to
    everyone, tchat to the team, or CPMA's mm2 team call), slot (the
    speaker's, where the line names it: mm2, Quake Live), name, location
    (team chat that names one), text, raw (the command's text as sent,
    colour codes and all)."""
    return _map_columns(_run, path, CHAT, columns=CHAT_COLUMNS[:4] + [("text", "object"),
                                                                      ("slot", "int64"),
                                                                      ("sender", "object"),
                                                                      ("location", "object")],
                        post=_chat_post)


def scores(path):
    """server_time, gamestate, command_seq, score1, score2."""
    return _run(path, SCORES, columns=[("server_time", "int64"), ("gamestate", "int64"),
                                       ("command_seq", "int64"), ("score1", "int64"), ("score2", "int64")])


def ticks(path, props, ticks=None, every=None, entities=False, max_rows=None, times=None):
    """Playerstate (or, entities=True, every entity's) fields per snapshot:
    server_time, entity, then props by netfield name (origin, viewangles.1,
    stats.0, weapon, ...). ticks: only snapshots at these server times (ms);
    every: every every-th snapshot; max_rows: as zdem.parse_ticks.
    times= is the old name of ticks=."""
    if times is not None:
        import warnings
        warnings.warn("zdem.q3.ticks(times=) is now ticks=", DeprecationWarning, stacklevel=2)
        ticks = times if ticks is None else ticks
    props = [props] if isinstance(props, str) else list(props)
    return _run(path, ENTITY if entities else PLAYER, props, ticks, every,
                [("server_time", "int64"), ("entity", "int64")] + [(p, None) for p in props], max_rows)


def list_props(path=None, cls=None):
    """Every field name ticks accepts: class ("player": the playerstate,
    ticks(); "entity": ticks(entities=True)), name, type. A vector or
    array is listed whole (one column per element) and per element
    (NAME.N). The names are the protocols' (the same for every file: path
    is there for the same call as zdem.list_props)."""
    return _names.list_props_quake3(cls)
