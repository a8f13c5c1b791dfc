"""Quake III / Quake Live demos (.dm3, .dm_48, .dm_66 .. .dm_91) as DataFrames."""
import numpy as np

from ._lib import ffi, lib, Mapped, Table, arena, strings, finish
from ._lib import check_props as _check_props
from . import _names

PLAYER, ENTITY, OBITUARY, CHAT, SCORES = range(5)


def _run(path, kind, props=(), times=None, every=0, columns=None):
    _check_props(props, lib.ZDEM_Q3_ROWS_MAX_PROPS)
    f = Mapped(path)
    t = Table(max_cols=2 + 16 * max(1, len(props)))
    m, a = arena(lib.zdem_q3_rows_size())
    err = ffi.new("zdem_error *")
    cfg = ffi.new("zdem_q3_rows_config *")
    arr, keep = strings(list(props))
    cfg.kind = kind
    cfg.props = arr
    cfg.nprops = len(props)
    cfg.every = every
    cfg.protocol = lib.zdem_q3_protocol_from_path(f.path.encode())
    if times is not None:
        tarr = np.unique(np.asarray(list(times), dtype=np.int32))
        cfg.times = ffi.from_buffer("int32_t[]", tarr)
        cfg.ntimes = len(tarr)
    st = lib.zdem_q3_rows_run(a, len(m), cfg, f.ptr, f.size, t.t, err)
    _names.check(st, err, "zdem.q3.list_props(path) lists the fields")
    if st == 10 and err.offset == 0 and ffi.string(err.msg).startswith(b"q3 rows"):
        raise ValueError(ffi.string(err.msg).decode())
    return finish(f.path, st, err, t, columns)


def obituaries(path):
    """server_time, gamestate, attacker, attacker_name, target, target_name,
    mod, mod_name (attacker -1 / 1022: the world)."""
    return _run(path, OBITUARY, columns=["server_time", "gamestate", "attacker", "attacker_name",
                                         "target", "target_name", "mod", "mod_name"])


def chat(path):
    """server_time, gamestate, type (chat / tchat: everyone / team),
    command_seq, text, kind (the command form: chat, tchat, or CPMA's mm2
    team call, whose text is the message)."""
    return _run(path, CHAT, columns=["server_time", "gamestate", "type", "command_seq", "text", "kind"])


def scores(path):
    """server_time, gamestate, command_seq, score1, score2."""
    return _run(path, SCORES, columns=["server_time", "gamestate", "command_seq", "score1", "score2"])


def ticks(path, props, times=None, every=0, entities=False):
    """Playerstate (or, entities=True, every entity's) fields per snapshot:
    server_time, entity, then props by netfield name (origin, viewangles.1,
    stats.0, weapon, ...)."""
    if isinstance(props, str):
        props = [props]
    return _run(path, ENTITY if entities else PLAYER, props, times, every,
                ["server_time", "entity"])


def list_props(path=None, cls=None):
    """Every field name ticks accepts: class ("player": the playerstate,
    ticks(); "entity": ticks(entities=True)), name, type. A vector or
    array is listed whole (one column per element) and per element
    (NAME.N). The names are the protocols' (the same for every file: path
    is there for the same call as zdem.list_props)."""
    return _names.list_props_quake3(cls)
