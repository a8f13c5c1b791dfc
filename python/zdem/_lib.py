"""The shared library through cffi (ABI mode: no compiler needed) and the
one conversion every reader shares: zdem_table chunks -> pandas columns.

The library writes rows into a chunked column table in memory we hand it
(runtime/zdem_table.h); at each full chunk it calls back here and we copy
the chunk's columns as numpy arrays (whole arrays, never row by row; only
string cells become Python objects one by one). Memory stays bounded by
the chunk size while the demo is read."""
import mmap
import os

import numpy as np
import pandas as pd
from cffi import FFI

ffi = FFI()
ffi.cdef(r"""
typedef int zdem_status;
typedef struct zdem_error {
    zdem_status code;
    uint8_t offset_is_bits;
    uint8_t in_payload;
    uint64_t offset;
    uint64_t payload_pos;
    const char *msg;
} zdem_error;
const char *zdem_status_str(zdem_status code);

typedef struct zdem_table zdem_table;
typedef zdem_status (*zdem_table_flush_fn)(void *user, const zdem_table *t);
size_t zdem_table_size(uint32_t max_cols, uint32_t rows, uint32_t pool);
zdem_status zdem_table_init(zdem_table **out, void *mem, size_t size, uint32_t max_cols,
                            uint32_t rows, uint32_t pool, zdem_table_flush_fn fn, void *user,
                            zdem_error *err);
uint32_t zdem_table_rows(const zdem_table *t);
uint32_t zdem_table_ncols(const zdem_table *t);
const char *zdem_table_name(const zdem_table *t, uint32_t col, uint32_t *len);
const int64_t *zdem_table_values(const zdem_table *t, uint32_t col);
const uint8_t *zdem_table_kinds(const zdem_table *t, uint32_t col);
const uint8_t *zdem_table_pool(const zdem_table *t);
uint64_t zdem_table_dropped(const zdem_table *t);
uint64_t zdem_table_cut(const zdem_table *t);

#define ZDEM_S2_TICKS_MAX_PROPS 16383
#define ZDEM_Q3_ROWS_MAX_PROPS 64
typedef struct zdem_s2_ticks_config {
    const char *const *props;
    uint32_t nprops;
    const char *class_name;
    const int32_t *ticks;
    uint32_t nticks;
    uint32_t every;
    uint32_t max_rows_per_tick;
} zdem_s2_ticks_config;
size_t zdem_s2_rows_fixed_size(void);
zdem_status zdem_s2_rows_ticks(const uint8_t *file, size_t size, void *arena, size_t arena_size,
                               const zdem_s2_ticks_config *tc, uint64_t hash_seed, zdem_table *t,
                               zdem_error *err);
zdem_status zdem_s2_rows_events(const uint8_t *file, size_t size, void *arena, size_t arena_size,
                                const char *const *names, uint32_t nnames, uint64_t hash_seed,
                                zdem_table *t, zdem_error *err);
zdem_status zdem_s2_rows_header(const uint8_t *file, size_t size, void *arena, size_t arena_size,
                                zdem_table *t, zdem_error *err);

typedef struct zdem_q3_rows_config {
    int kind;
    const char *const *props;
    uint32_t nprops;
    const int32_t *times;
    uint32_t ntimes;
    uint32_t every;
    int protocol;
} zdem_q3_rows_config;
size_t zdem_q3_rows_size(void);
zdem_status zdem_q3_rows_run(void *mem, size_t size, const zdem_q3_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t, zdem_error *err);
int zdem_q3_protocol_from_path(const char *path);

typedef struct zdem_tw_rows_config {
    int kind;
    const char *object;
    const char *const *props;
    uint32_t nprops;
    const int32_t *ticks;
    uint32_t nticks;
    uint32_t every;
} zdem_tw_rows_config;
size_t zdem_tw_rows_size(void);
zdem_status zdem_tw_rows_run(void *mem, size_t size, const zdem_tw_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t, zdem_error *err);
""")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    """ZDEM_LIB, then a libzdem.so next to the package, then the build
    trees of a source checkout, then the system's."""
    env = os.environ.get("ZDEM_LIB")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(_HERE))
    for cand in (os.path.join(_HERE, "libzdem.so"),
                 os.path.join(root, "build", "libzdem.so")):
        if os.path.exists(cand):
            return cand
    return "libzdem.so"  # the dynamic loader's search path (an installed zdem)


lib = ffi.dlopen(_find_library())

CELL_NONE, CELL_INT, CELL_UINT, CELL_FLOAT, CELL_BOOL, CELL_STR = range(6)
ROWS_PER_CHUNK = 1 << 16      # rows per chunk handed over at a time
POOL_BYTES = 8 << 20          # string bytes per chunk
CHUNK_CELLS = 1 << 24         # cells per chunk at most (9 bytes each)
S2_STATE_BYTES = 256 << 20    # Source 2 state arena, as the CLI's --memory default


class DemoError(Exception):
    """A damaged or truncated demo. offset: the file offset of the fault
    (payload_pos: the byte inside that frame's payload, Source 2), message:
    what is wrong, data: the DataFrame of everything read before it."""

    def __init__(self, path, offset, message, data=None, payload_pos=None):
        where = "offset %d" % offset
        if payload_pos is not None:
            where += " (payload byte %d)" % payload_pos
        super().__init__("%s: %s: %s" % (path, where, message))
        self.path = path
        self.offset = offset
        self.payload_pos = payload_pos
        self.message = message
        self.data = data


class _Columns:
    """Accumulates chunks: per column name, lists of (values, kinds, pool)."""

    def __init__(self):
        self.order = []
        self.parts = {}
        self.rows = 0

    def add_chunk(self, t):
        n = lib.zdem_table_rows(t)
        if not n:
            return
        pool = None
        ln = ffi.new("uint32_t *")
        for c in range(lib.zdem_table_ncols(t)):
            name = ffi.unpack(lib.zdem_table_name(t, c, ln), ln[0]).decode("utf-8", "replace")
            vals = np.frombuffer(ffi.buffer(lib.zdem_table_values(t, c), 8 * n), dtype=np.int64).copy()
            kinds = np.frombuffer(ffi.buffer(lib.zdem_table_kinds(t, c), n), dtype=np.uint8).copy()
            strs = None
            is_str = kinds == CELL_STR
            if is_str.any():
                if pool is None:  # the pool's used part: up to the furthest string
                    v = vals[is_str]
                    end = int(((v >> 32) + (v & 0xFFFFFFFF)).max())
                    pool = bytes(ffi.buffer(lib.zdem_table_pool(t), end))
                else:
                    v = vals[is_str]
                    end = int(((v >> 32) + (v & 0xFFFFFFFF)).max())
                    if end > len(pool):
                        pool = bytes(ffi.buffer(lib.zdem_table_pool(t), end))
                strs = np.empty(n, dtype=object)
                for i in np.flatnonzero(is_str):
                    off = int(vals[i]) >> 32
                    strs[i] = pool[off:off + (int(vals[i]) & 0xFFFFFFFF)].decode("utf-8", "replace")
            if name not in self.parts:
                self.order.append(name)
                self.parts[name] = []
                if self.rows:  # a column that appeared late: nothing before
                    self.parts[name].append((np.zeros(self.rows, np.int64), np.zeros(self.rows, np.uint8), None))
            self.parts[name].append((vals, kinds, strs))
        for name in self.order:  # columns this chunk did not have
            have = sum(len(p[1]) for p in self.parts[name])
            if have < self.rows + n:
                k = self.rows + n - have
                self.parts[name].append((np.zeros(k, np.int64), np.zeros(k, np.uint8), None))
        self.rows += n

    def frame(self, columns=None):
        names = list(self.order)
        if columns is not None:  # the asked-for columns first, in that order
            first = [c for c in columns if c in self.parts]
            names = first + [c for c in names if c not in first]
        data = {}
        for name in names:
            parts = self.parts[name]
            if len(parts) == 1:
                vals, kinds = parts[0][0], parts[0][1]
            else:
                vals = np.concatenate([p[0] for p in parts])
                kinds = np.concatenate([p[1] for p in parts])
            data[name] = _column(vals, kinds, parts)
        if columns is not None:
            for c in columns:  # asked for but never seen: all missing
                if c not in data and not any(k.startswith(c + ".") for k in data):
                    data[c] = np.full(self.rows, None, dtype=object)
        # plain numpy arrays go in without a copy or a Series each
        return pd.DataFrame(data, copy=False) if data else pd.DataFrame()


def _column(vals, kinds, parts):
    """One column (numpy or pandas masked array) from 8-byte cells and
    their kinds, by whole arrays."""
    first = int(kinds[0]) if len(kinds) else CELL_NONE
    if len(kinds) and first in (CELL_INT, CELL_FLOAT, CELL_UINT) and (kinds == first).all():
        # the common case, one kind throughout: a view of the cells
        return vals if first == CELL_INT else vals.view(np.float64 if first == CELL_FLOAT else np.uint64)
    present = kinds != CELL_NONE
    kset = set(np.unique(kinds[present]).tolist())
    missing = not present.all()
    if not kset:
        return np.full(len(kinds), None, dtype=object)
    if CELL_STR in kset:
        out = np.empty(len(kinds), dtype=object)
        at = 0
        for v, k, s in parts:
            if s is not None:
                out[at:at + len(k)] = s
            at += len(k)
        num = present & (kinds != CELL_STR)
        if num.any():  # numbers among strings: keep them as numbers
            out[num] = np.asarray(_column(vals[num], kinds[num], [(vals[num], kinds[num], None)]), dtype=object)
        out[~present] = None
        return out
    if CELL_FLOAT in kset:
        f = vals.view(np.float64).copy()
        ints = (kinds == CELL_INT) | (kinds == CELL_BOOL)
        f[ints] = vals[ints].astype(np.float64)
        u = kinds == CELL_UINT
        f[u] = vals[u].view(np.uint64).astype(np.float64)
        f[~present] = np.nan
        return f
    if kset == {CELL_BOOL}:
        b = vals != 0
        return pd.arrays.BooleanArray(b, ~present) if missing else b
    if CELL_UINT in kset:
        u = vals.view(np.uint64)
        return pd.arrays.IntegerArray(u, ~present) if missing else u
    # ints (bools among them count as 0/1)
    return pd.arrays.IntegerArray(vals, ~present) if missing else vals


class Table:
    """A zdem_table in memory we own, collecting its chunks into _Columns."""

    def __init__(self, max_cols=256, rows=ROWS_PER_CHUNK, pool=POOL_BYTES):
        self.cols = _Columns()
        # a wide table (many properties) takes fewer rows per chunk, so
        # that its mapping stays within CHUNK_CELLS cells
        rows = min(rows, max(256, CHUNK_CELLS // max_cols))
        size = lib.zdem_table_size(max_cols, rows, pool)
        # an anonymous mapping: page aligned, and pages never written stay
        # unallocated (a small demo does not pay for the whole chunk)
        self._map = mmap.mmap(-1, size)
        self._mem = ffi.from_buffer(self._map)
        out = ffi.new("zdem_table **")
        err = ffi.new("zdem_error *")

        @ffi.callback("zdem_status(void *, const zdem_table *)")
        def flush(user, t):
            try:
                self.cols.add_chunk(t)
            except Exception as e:  # never let an exception unwind through C
                self.failure = e
                return 11  # ZDEM_ERR_ABORTED
            return 0

        self.failure = None
        self._flush = flush
        if lib.zdem_table_init(out, self._mem, size, max_cols, rows, pool, flush, ffi.NULL, err) != 0:
            raise MemoryError(ffi.string(err.msg).decode())
        self.t = out[0]


class Mapped:
    """A demo file mapped read-only (the library reads it in place)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._map = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) if size else None
        self.size = size
        self.ptr = ffi.from_buffer(self._map) if self._map is not None else ffi.new("uint8_t[1]")


def arena(size):
    """An anonymous mapping for a parser's state, and its cffi pointer."""
    m = mmap.mmap(-1, size)
    return m, ffi.from_buffer(m)


def check_props(props, limit):
    """Too many properties is a usage error, not a failed allocation."""
    if len(props) > limit:
        raise ValueError("too many properties: %d (limit %d)" % (len(props), limit))


def strings(items):
    """A const char *const * array (and what keeps its strings alive)."""
    keep = [ffi.new("char[]", s.encode("utf-8")) for s in items]
    arr = ffi.new("const char *[]", keep) if keep else ffi.NULL
    return arr, keep


def finish(path, status, err, table, columns=None):
    """The DataFrame, or DemoError (with the rows read before the fault)."""
    if table.failure is not None:
        raise table.failure
    df = table.cols.frame(columns)
    if status != 0:
        msg = ffi.string(err.msg).decode("utf-8", "replace") if err.msg != ffi.NULL else \
            ffi.string(lib.zdem_status_str(status)).decode()
        raise DemoError(path, int(err.offset), msg, df,
                        int(err.payload_pos) if err.in_payload else None)
    return df
