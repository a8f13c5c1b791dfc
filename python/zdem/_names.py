"""Discovery: the names parse_ticks / ticks accept (list_props), and the
ValueError an unknown name raises (ZDEM_ERR_UNKNOWN_NAME: the library's
message names it and the closest valid ones)."""
import pandas as pd

from ._lib import ffi, lib, Arena, Run, S2_STATE_BYTES

ffi.cdef(r"""
zdem_status zdem_s2_rows_props(const uint8_t *file, size_t size, void *arena, size_t arena_size,
                               const char *class_name, uint64_t hash_seed, zdem_table *t,
                               zdem_error *err);
int zdem_q3_rows_field_at(int player, uint32_t i, const char **name, uint32_t *elements,
                          int *is_float);
int zdem_tw_rows_field_at(uint32_t i, const char **object, const char **field, int *is_string);
int zdem_tw_rows_field_of(const uint8_t *file, size_t n, uint32_t i, const char **object,
                          const char **field, int *is_string);
zdem_status zdem_tw_rows_start(void *mem, size_t size, const zdem_tw_rows_config *c,
                               zdem_table *t, zdem_error *err);
""")

UNKNOWN_NAME = 13  # ZDEM_ERR_UNKNOWN_NAME
_COLUMNS = ["class", "name", "type", "reads"]


def check(status, err, hint=None):
    """ValueError for an unknown name (nothing of the file is returned)."""
    if status == UNKNOWN_NAME:
        msg = ffi.string(err.msg).decode("utf-8", "replace")
        raise ValueError(msg + (" (%s)" % hint if hint else ""))


def _frame(rows):
    return pd.DataFrame(rows, columns=["class", "name", "type"])


def list_props_source2(path, cls=None):
    with Run(path, max_cols=4, rows=1 << 14, pool=1 << 20, columns=_COLUMNS) as r:
        mem, size = r.arena(lib.zdem_s2_rows_fixed_size() + S2_STATE_BYTES)
        cname = ffi.new("char[]", cls.encode()) if cls else ffi.NULL
        st = lib.zdem_s2_rows_props(r.file, r.size, mem, size, cname, 0, r.table, r.err)
        check(st, r.err)
        df = r.finish(st)
    for c in _COLUMNS:  # an empty listing keeps its columns
        if c not in df:
            df[c] = pd.Series([], dtype=object)
    return df[_COLUMNS]


def list_props_quake3(cls=None):
    if cls not in (None, "player", "entity"):
        raise ValueError("unknown class %r; Quake III rows are 'player' (playerstate) or 'entity'" % cls)
    rows = []
    name, n, flt = ffi.new("const char **"), ffi.new("uint32_t *"), ffi.new("int *")
    for player, c in ((1, "player"), (0, "entity")):
        if cls is not None and cls != c:
            continue
        i = 0
        while lib.zdem_q3_rows_field_at(player, i, name, n, flt):
            nm, ty = ffi.string(name[0]).decode(), "float" if flt[0] else "int32"
            rows.append((c, nm, ty))
            rows.extend((c, "%s.%d" % (nm, k), ty) for k in range(n[0]) if n[0] > 1)
            i += 1
    return _frame(rows)


def list_props_teeworlds(cls=None, path=None):
    """The objects of the file's protocol (its header's net version: 0.6
    or 0.7); without a path, 0.6's."""
    want = "player_info" if cls == "player" else cls
    rows, objs = [], []
    obj, field, is_str = ffi.new("const char **"), ffi.new("const char **"), ffi.new("int *")
    head = b""
    if path is not None:
        with open(path, "rb") as fh:
            head = fh.read(72)
    hbuf = ffi.new("uint8_t[]", head or b"\0")
    i = 0
    while lib.zdem_tw_rows_field_of(hbuf, len(head), i, obj, field, is_str):
        o = ffi.string(obj[0]).decode()
        if not objs or objs[-1] != o:
            objs.append(o)
        if want is None or o == want:
            rows.append((o, ffi.string(field[0]).decode(), "string" if is_str[0] else "int"))
        i += 1
    if want is not None and want not in objs:  # the library's message
        a = Arena(lib.zdem_tw_rows_size())
        try:
            err = ffi.new("zdem_error *")
            cfg = ffi.new("zdem_tw_rows_config *")
            oname = ffi.new("char[]", cls.encode())
            cfg.object = oname
            check(lib.zdem_tw_rows_start(a.ptr, a.size, cfg, ffi.NULL, err), err)
        finally:
            a.close()
    return _frame(rows)


def list_props(path, cls=None):
    """By the file's format (its first bytes, as the CLI detects it)."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(b"PBDEMS2\0"):
        return list_props_source2(path, cls)
    if head.startswith(b"TWDEMO\0"):
        return list_props_teeworlds(cls, path)
    return list_props_quake3(cls)
