"""The shared library through cffi (ABI mode: no compiler needed) and what
every reader shares: the per-call resources (file mapping, parser arenas,
the chunked column table) and the errors.

The library writes rows into a chunked column table in memory we hand it
(runtime/zdem_table.h); at each full chunk it calls back and _frame copies
the chunk's columns as numpy arrays (whole arrays, never row by row; only
string cells become Python objects one by one)."""
import itertools
import mmap
import os
import weakref

import numpy as np
from cffi import FFI

from ._frame import Collector

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
#define ZDEM_TW_ROWS_MAX_PROPS 64
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
ffi.cdef(r"""
const char *zdem_version(void);
uint64_t zdem_table_total(const zdem_table *t);
""")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    """ZDEM_LIB, then the libzdem.so inside the package (pip install,
    cmake --install with ZDEM_INSTALL_PYTHON), then a source checkout's
    build/, then the dynamic loader's search path."""
    env = os.environ.get("ZDEM_LIB")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(_HERE))
    for cand in (os.path.join(_HERE, "libzdem.so"),
                 os.path.join(root, "build", "libzdem.so")):
        if os.path.exists(cand):
            return cand
    return "libzdem.so"


lib = ffi.dlopen(_find_library())
VERSION = ffi.string(lib.zdem_version()).decode()

CELL_NONE, CELL_INT, CELL_UINT, CELL_FLOAT, CELL_BOOL, CELL_STR = range(6)
ROWS_PER_CHUNK = 1 << 16      # rows per chunk handed over at a time
POOL_BYTES = 8 << 20          # string bytes per chunk
CHUNK_CELLS = 1 << 24         # cells per chunk at most (9 bytes each)
S2_STATE_BYTES = 256 << 20    # Source 2 state arena, as the CLI's --memory default
ABORTED = 11                  # ZDEM_ERR_ABORTED: a callback stopped the run
LIMIT = 10                    # ZDEM_ERR_LIMIT


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

    def __reduce__(self):  # across processes (Dask workers) with its fields
        return (DemoError, (self.path, self.offset, self.message, self.data, self.payload_pos))


class RowLimitError(DemoError):
    """More rows than max_rows: data holds the first max_rows of them,
    offset the file offset where reading stopped. A DemoError, so code that
    keeps e.data of a damaged demo keeps these rows too."""

    def __init__(self, path, offset, max_rows, data):
        super().__init__(path, offset, "more than max_rows=%d rows (the first %d are in .data)"
                         % (max_rows, max_rows), data)
        self.max_rows = max_rows

    def __reduce__(self):
        return (RowLimitError, (self.path, self.offset, self.max_rows, self.data))


# ---- per-call resources --------------------------------------------------------
# Everything a call takes is returned when it ends, by close() (the public
# functions use Run as a context manager), never left to the garbage
# collector: the file mapping, the parser's arena and the table are
# mappings of their own, and none of them is part of a reference cycle
# (the table's callback is one function for every table; it finds its
# collector by number), so even a caller that never closes them gets them
# back as soon as the last reference goes.

_collectors = weakref.WeakValueDictionary()
_next_id = itertools.count(1)


@ffi.callback("zdem_status(void *, const zdem_table *)")
def _flush(user, t):
    c = _collectors.get(int(ffi.cast("uintptr_t", user)))
    if c is None:
        return ABORTED
    try:
        return ABORTED if c.add_chunk(t) else 0
    except BaseException as e:  # never let an exception unwind through C
        c.failure = e
        return ABORTED


class Mapped:
    """A demo file mapped read-only (the library reads it in place)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._map = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) if size else None
        self.size = size
        self.ptr = ffi.from_buffer(self._map) if self._map is not None else ffi.new("uint8_t[1]")

    def close(self):
        if self._map is not None:
            ffi.release(self.ptr)
            self._map.close()
            self._map = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Arena:
    """Anonymous memory for a parser's state: page aligned, and pages never
    written are never allocated. Unpacks as (mapping, pointer)."""

    def __init__(self, size):
        self.size = size
        self._map = mmap.mmap(-1, size)
        self.ptr = ffi.from_buffer(self._map)

    def __iter__(self):  # m, a = arena(size)
        return iter((self._map, self.ptr))

    def __len__(self):
        return self.size

    def close(self):
        if self._map is not None:
            ffi.release(self.ptr)
            self._map.close()
            self._map = None


def arena(size):
    """An Arena of size bytes (m, a = arena(size) also works)."""
    return Arena(size)


class Table:
    """A zdem_table in memory we own, its chunks collected into cols (a
    _frame.Collector). rows: rows per chunk; max_rows: stop past that many
    rows (the chunk is made no larger than needed to see it)."""

    def __init__(self, max_cols=256, rows=ROWS_PER_CHUNK, pool=POOL_BYTES, max_rows=None):
        if max_rows is not None:
            rows = max(1, min(rows, max_rows + 1))
        # a wide table (many properties) takes fewer rows per chunk, so
        # that its mapping stays within CHUNK_CELLS cells
        rows = min(rows, max(256, CHUNK_CELLS // max_cols))
        self.cols = Collector(ffi, lib, max_rows, pool)
        self._id = next(_next_id)
        _collectors[self._id] = self.cols
        size = lib.zdem_table_size(max_cols, rows, pool)
        self._map = mmap.mmap(-1, size)
        self._mem = ffi.from_buffer(self._map)
        out = ffi.new("zdem_table **")
        err = ffi.new("zdem_error *")
        if lib.zdem_table_init(out, self._mem, size, max_cols, rows, pool, _flush,
                               ffi.cast("void *", self._id), err) != 0:
            self.close()
            raise MemoryError(ffi.string(err.msg).decode())
        self.t = out[0]

    @property
    def failure(self):
        return self.cols.failure

    def close(self):
        _collectors.pop(self._id, None)
        if self._map is not None:
            self.t = None
            ffi.release(self._mem)
            self._map.close()
            self._map = None


def check_props(props, limit):
    """Too many properties is a usage error, not a failed allocation."""
    if len(props) > limit:
        raise ValueError("too many properties: %d (limit %d)" % (len(props), limit))


def strings(items):
    """A const char *const * array (and what keeps its strings alive)."""
    keep = [ffi.new("char[]", s.encode("utf-8")) for s in items]
    arr = ffi.new("const char *[]", keep) if keep else ffi.NULL
    return arr, keep


def int32_array(values):
    """Ascending unique int32s as (cffi pointer, count, keep-alive array)."""
    a = np.unique(np.asarray(list(values), dtype=np.int64))
    if len(a) and (a[0] < -2**31 or a[-1] >= 2**31):
        raise ValueError("ticks must be 32-bit integers")
    a = a.astype(np.int32)
    return (ffi.from_buffer("int32_t[]", a) if len(a) else ffi.NULL), len(a), a


def finish(path, status, err, table, columns=None):
    """The DataFrame, or DemoError (with the rows read before the fault).
    columns: names first and in that order, or [(name, dtype)] pairs whose
    dtypes an empty result keeps."""
    cols = table.cols
    if cols.failure is not None:
        f, cols.failure = cols.failure, None
        raise f
    schema = [c if isinstance(c, tuple) else (c, None) for c in (columns or [])]
    df = cols.frame(schema)
    if cols.over:
        raise RowLimitError(path, int(err.offset), cols.max_rows, df)
    if status != 0:
        msg = ffi.string(err.msg).decode("utf-8", "replace") if err.msg != ffi.NULL else \
            ffi.string(lib.zdem_status_str(status)).decode()
        raise DemoError(path, int(err.offset), msg, df,
                        int(err.payload_pos) if err.in_payload else None)
    return df


class Run:
    """One call's resources: the file (file, size: for the C call), the
    table (table: the zdem_table pointer), parser arenas (arena(size)) and
    an error record (err); all returned on exit, however the call ends.

        with Run(path, max_cols=64, columns=[("tick", "int64")]) as r:
            st = lib.zdem_..._run(..., r.file, r.size, r.table, r.err)
            return r.finish(st)
    """

    def __init__(self, path, max_cols=256, columns=None, max_rows=None, rows=ROWS_PER_CHUNK,
                 pool=POOL_BYTES):
        self._res = []
        self.columns = columns
        self.mapped = self._keep(Mapped(path))
        self.path = self.mapped.path
        self.file = self.mapped.ptr
        self.size = self.mapped.size
        try:
            self._table = self._keep(Table(max_cols, rows, pool, max_rows))
        except BaseException:
            self.close()
            raise
        self.table = self._table.t
        self.err = ffi.new("zdem_error *")

    def _keep(self, res):
        self._res.append(res)
        return res

    def arena(self, size):
        """(pointer, size) of fresh parser memory, returned with the rest."""
        a = self._keep(Arena(size))
        return a.ptr, a.size

    def finish(self, status):
        return finish(self.path, status, self.err, self._table, self.columns)

    def close(self):
        while self._res:
            self._res.pop().close()
        self.table = self.file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
