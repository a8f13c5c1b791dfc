"""Quake III / Quake Live demos (.dm3, .dm_48, .dm_66 .. .dm_91) as DataFrames."""
import os

import numpy as np

from ._lib import ffi, lib, Run, strings, int32_array

__all__ = ["obituaries", "chat", "scores", "ticks"]

PLAYER, ENTITY, OBITUARY, CHAT, SCORES = range(5)


def __dir__():
    return sorted(__all__)


def _run(path, kind, props=(), ticks=None, every=0, columns=None, max_rows=None):
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
        if st == 10 and r.err.offset == 0 and ffi.string(r.err.msg).startswith(b"q3 rows"):
            raise ValueError(ffi.string(r.err.msg).decode())
        return r.finish(st)


def obituaries(path):
    """server_time, gamestate, attacker, attacker_name, target, target_name,
    mod, mod_name (attacker -1 / 1022: the world)."""
    return _run(path, OBITUARY, columns=[("server_time", "int64"), ("gamestate", "int64"),
                                         ("attacker", "int64"), ("attacker_name", "object"),
                                         ("target", "int64"), ("target_name", "object"),
                                         ("mod", "int64"), ("mod_name", "object")])


def chat(path):
    """server_time, gamestate, type (chat / tchat: everyone / team),
    command_seq, text, kind (the command form: chat, tchat, or CPMA's mm2
    team call, whose text is the message)."""
    return _run(path, CHAT, columns=[("server_time", "int64"), ("gamestate", "int64"), ("type", "object"),
                                     ("command_seq", "int64"), ("text", "object"), ("kind", "object")])


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
