"""zdem_table chunks -> one pandas DataFrame, by whole arrays.

The library hands over a chunk of rows at a time (runtime/zdem_table.h):
per column, 8-byte cells and a kind byte per cell. Each chunk's columns are
copied once (a column of one kind keeps no kind bytes) and, at the end,
each column is assembled into its final array while its chunks are freed,
so a result costs its own size plus one column at its peak.

A column's dtype follows the kinds the decoder wrote, not its values:
  int             -> int64          (Int64 when some rows have no value)
  uint            -> uint64         (the library writes uint only for
                                     declared 64-bit values: SteamIDs, ids)
  float           -> float64        (NaN for no value)
  bool            -> bool           (boolean when some rows have no value)
  str             -> object (str)
and mixes: int + uint -> uint64 when no int is negative, int + bool ->
int64, a float among numbers -> float64, a string among others -> object.
"""
import numpy as np
import pandas as pd

NONE, INT, UINT, FLOAT, BOOL, STR = range(6)
_NUMERIC_DTYPE = {INT: np.int64, UINT: np.uint64, FLOAT: np.float64}
_NULLABLE = {"int64": "Int64", "uint64": "UInt64", "bool": "boolean", "float64": "float64",
             "object": "object"}
_STR_CACHE_MAX = 4096  # distinct strings kept for sharing (names, event names)


class _Part:
    """One chunk of one column: n rows; kind is the one kind of every cell,
    or None with kinds holding each cell's; vals the 8-byte cells (None for
    no value / strings only); strs the strings (object array) if any."""
    __slots__ = ("n", "kind", "kinds", "vals", "strs")

    def __init__(self, n, kind, kinds=None, vals=None, strs=None):
        self.n, self.kind, self.kinds, self.vals, self.strs = n, kind, kinds, vals, strs


class Collector:
    """Accumulates a table's chunks (add_chunk from the flush callback);
    frame() builds the DataFrame. max_rows: keep that many rows, then ask
    the producer to stop (over becomes True)."""

    def __init__(self, ffi, lib, max_rows=None, pool_bytes=0):
        self._ffi, self._lib = ffi, lib
        self._pool_bytes = pool_bytes  # the table's string pool
        self.order = []        # column names, first seen first
        self.parts = {}        # name -> [_Part]
        self.rows = 0
        self.max_rows = max_rows
        self.over = False
        self.failure = None    # an exception raised in the callback
        self._names = []       # table column index -> name
        self._strs = {}        # bytes -> str, shared by equal cells
        self._ln = ffi.new("uint32_t *")

    def add_chunk(self, t):
        """Copies a full chunk; returns 0, or nonzero to stop the producer."""
        ffi, lib = self._ffi, self._lib
        n = lib.zdem_table_rows(t)
        if not n:
            return 0
        stop = 0
        if self.max_rows is not None and self.rows + n > self.max_rows:
            n = self.max_rows - self.rows
            self.over = True
            stop = 1
        if n <= 0:
            return stop
        ncols = lib.zdem_table_ncols(t)
        while len(self._names) < ncols:
            c = len(self._names)
            self._names.append(ffi.unpack(lib.zdem_table_name(t, c, self._ln), self._ln[0]).decode("utf-8", "replace"))
        # the pool in place: each string is sliced out of it (a copy of its
        # own bytes), nothing else of it is copied
        pool = ffi.buffer(lib.zdem_table_pool(t), self._pool_bytes)
        for c in range(ncols):
            name = self._names[c]
            kinds = np.frombuffer(ffi.buffer(lib.zdem_table_kinds(t, c), n), dtype=np.uint8)
            k0 = int(kinds[0])
            uniform = bool((kinds == k0).all())
            if uniform and k0 == NONE:
                part = _Part(n, NONE)
            else:
                vals = np.frombuffer(ffi.buffer(lib.zdem_table_values(t, c), 8 * n), dtype=np.int64)
                strs = None
                if k0 == STR or not uniform and (kinds == STR).any():
                    strs = self._strings(vals, kinds, pool, uniform)
                if uniform:
                    part = _Part(n, k0, vals=None if k0 == STR else vals.copy(), strs=strs)
                else:
                    part = _Part(n, None, kinds=kinds.copy(), vals=vals.copy(), strs=strs)
            plist = self.parts.get(name)
            if plist is None:
                self.order.append(name)
                plist = self.parts[name] = []
                if self.rows:  # a column that appeared late: nothing before
                    plist.append(_Part(self.rows, NONE))
            plist.append(part)
        for name in self.order:  # columns this chunk did not reach
            plist = self.parts[name]
            have = sum(p.n for p in plist)
            if have < self.rows + n:
                plist.append(_Part(self.rows + n - have, NONE))
        self.rows += n
        return stop

    def _strings(self, vals, kinds, pool, uniform):
        out = np.empty(len(vals), dtype=object)
        cache = self._strs
        idx = range(len(vals)) if uniform else np.flatnonzero(kinds == STR).tolist()
        offs = (vals >> 32).tolist()
        lens = (vals & 0xFFFFFFFF).tolist()
        for i in idx:
            b = pool[offs[i]:offs[i] + lens[i]]
            s = cache.get(b)
            if s is None:
                s = b.decode("utf-8", "replace")
                if len(cache) >= _STR_CACHE_MAX:
                    cache.clear()
                cache[b] = s
            out[i] = s
        return out

    # ---- the DataFrame -----------------------------------------------------------

    def frame(self, schema=None):
        """The DataFrame. schema: [(name, dtype)] of the columns the call
        always has (dtype None: not known in advance), first and in that
        order; their dtypes hold when there are no rows or no values. A
        name whose columns came out as NAME.0, NAME.1, ... (a vector) is
        not added as a column of its own."""
        self._strs = {}
        schema = list(schema or [])
        known = dict(schema)
        data = {}
        for name in [c for c, _ in schema] + [c for c in self.order if c not in known]:
            if name in data:
                continue
            if name in self.parts:
                data[name] = _column(self.parts.pop(name), self.rows, known.get(name))
            elif not any(k.startswith(name + ".") for k in self.order):
                data[name] = _missing(self.rows, known.get(name))  # never seen
        self.parts = {}
        # numpy arrays go in as they are: no copy, no consolidation
        return pd.DataFrame(data, index=pd.RangeIndex(self.rows), copy=False)


def _missing(n, dtype):
    """A column with no value in any of its n rows, of dtype (nullable)."""
    if dtype is None or dtype == "object":
        return np.full(n, None, dtype=object)
    if n == 0:
        return np.empty(0, dtype=dtype)
    if dtype == "float64":
        return np.full(n, np.nan)
    return pd.array([None] * n, dtype=_NULLABLE[dtype])


def _column(parts, n, dtype=None):
    """One column from its chunks (freed as they are copied in)."""
    if len(parts) == 1 and parts[0].kind is not None:  # one chunk, one kind: as it is
        p = parts.pop()
        if p.kind == NONE:
            return _missing(n, dtype)
        if p.kind == STR:
            return p.strs
        return p.vals != 0 if p.kind == BOOL else _convert(p.vals, p.kind, p.kind)
    kset = set()
    missing = False
    for p in parts:
        if p.kind is None:
            ks = set(np.unique(p.kinds).tolist())
            missing = missing or NONE in ks
            kset |= ks - {NONE}
        elif p.kind == NONE:
            missing = True
        else:
            kset.add(p.kind)
    if not kset:
        return _missing(n, dtype)
    if STR in kset:
        return _objects(parts, n)
    if FLOAT in kset:
        target = FLOAT
    elif kset == {BOOL}:
        target = BOOL
    elif UINT in kset and (INT in kset or BOOL in kset):
        target = UINT if not _any_negative(parts) else (INT if not _any_big(parts) else None)
        if target is None:  # both signs and values past int64: exact objects
            return _objects(parts, n)
    elif UINT in kset:
        target = UINT
    else:
        target = INT  # ints, bools among them as 0/1
    out = np.empty(n, dtype=bool if target == BOOL else _NUMERIC_DTYPE[target])
    mask = np.zeros(n, dtype=bool) if missing else None
    at = 0
    while parts:
        p = parts.pop(0)
        s = slice(at, at + p.n)
        if p.kind == NONE:
            mask[s] = True
            out[s] = 0
        elif p.kind is not None:
            out[s] = _convert(p.vals, p.kind, target)
        else:
            for k in np.unique(p.kinds).tolist():
                sel = p.kinds == k
                if k == NONE:
                    mask[s][sel] = True
                    out[s][sel] = 0
                else:
                    out[s][sel] = _convert(p.vals[sel], k, target)
        at += p.n
    if mask is None:
        return out
    if target == FLOAT:
        out[mask] = np.nan
        return out
    if target == BOOL:
        return pd.arrays.BooleanArray(out, mask)
    return pd.arrays.IntegerArray(out, mask)


def _convert(vals, kind, target):
    """8-byte cells of one kind as the target's values."""
    if target == BOOL:
        return vals != 0
    if kind == FLOAT:
        return vals.view(np.float64)
    if kind == UINT:
        u = vals.view(np.uint64)
        return u.astype(np.float64) if target == FLOAT else u
    if target == FLOAT:
        return vals.astype(np.float64)
    return vals if target == INT else vals.view(np.uint64)  # int (or bool) cells


def _any_negative(parts):
    for p in parts:
        if p.kind == INT:
            if (p.vals < 0).any():
                return True
        elif p.kind is None and ((p.kinds == INT) & (p.vals < 0)).any():
            return True
    return False


def _any_big(parts):
    for p in parts:
        if p.kind == UINT:
            if (p.vals < 0).any():  # past INT64_MAX
                return True
        elif p.kind is None and ((p.kinds == UINT) & (p.vals < 0)).any():
            return True
    return False


def _objects(parts, n):
    """An object column: strings, numbers as Python numbers, None."""
    out = np.full(n, None, dtype=object)
    at = 0
    while parts:
        p = parts.pop(0)
        s = slice(at, at + p.n)
        if p.kind == STR:
            out[s] = p.strs
        elif p.kind is not None and p.kind != NONE:
            out[s] = _convert(p.vals, p.kind, p.kind if p.kind != BOOL else BOOL).astype(object)
        elif p.kind is None:
            for k in np.unique(p.kinds).tolist():
                if k == NONE:
                    continue
                sel = np.flatnonzero(p.kinds == k)
                if k == STR:
                    out[at + sel] = p.strs[sel]
                else:
                    out[at + sel] = _convert(p.vals[sel], k, k).astype(object)
        at += p.n
    return out
