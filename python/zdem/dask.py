"""Many demos at once with Dask: one partition per demo, each parsed
wherever the scheduler puts it (threads, local processes, or a cluster of
machines: the workers need zdem and read access to the paths).

    import zdem.dask
    from distributed import Client
    client = Client("tcp://scheduler:8786")        # or LocalCluster()
    ev = zdem.dask.read_events(paths, names=["player_death"],
                               keys=["attacker_steamid", "attacker_name", "weapon"])
    kills = ev.groupby("attacker_steamid").size().compute()   # per person, across demos

Every partition starts with a "demo" column (the path it came from). Events
carry the keys of their own event types and the players they name
(<role>_name, <role>_steamid, <role>_team_num: join on the SteamID, not on
userid, which is a slot that different people share across demos). With
keys= every partition has exactly those columns; with names= alone, those
of the first demo that has such an event (found here, eagerly); with
neither, the first demo's columns are the metadata and compute() unions
them (pandas.concat). errors="keep" turns a damaged demo into the rows read
before the fault instead of failing the whole computation."""
import dask
import dask.dataframe as dd
import pandas as pd

import zdem

__all__ = ["read_events", "read_ticks"]


def __dir__():
    return sorted(__all__)


def _tag(df, path):
    df.insert(0, "demo", path)
    return df


def _events(path, names, keys, errors, columns=None):
    try:
        df = zdem.parse_events(path, names=names)
    except zdem.DemoError as e:
        if errors != "keep":
            raise
        df = e.data
    if keys is not None:
        df = df.reindex(columns=["tick", "type", "event_name"] + list(keys))
    elif columns is not None:
        df = df.reindex(columns=columns)
    return _tag(df, path)


def _ticks(path, props, ticks, every, classes, errors):
    try:
        df = zdem.parse_ticks(path, props, ticks=ticks, every=every, classes=classes)
    except zdem.DemoError as e:
        if errors != "keep":
            raise
        df = e.data
    return _tag(df, path)


def _frame(parts, meta):
    if meta is None:  # the first partition's columns (computed once, here)
        meta = parts[0].compute().iloc[:0] if parts else pd.DataFrame()
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def read_events(paths, names=None, keys=None, errors="raise"):
    """A dask.dataframe of zdem.parse_events over paths, one partition each."""
    paths = [str(p) for p in paths]
    columns = None
    if names is not None and keys is None:
        # the columns of the first demo holding such an event, for all
        for p in paths:
            first = _events(p, names, None, errors)
            if len(first) or p == paths[-1]:
                columns = [c for c in first.columns if c != "demo"]
                break
    parts = [dask.delayed(_events, pure=True)(p, names, keys, errors, columns) for p in paths]
    meta = None
    if keys is not None:
        meta = pd.DataFrame({"demo": pd.Series(dtype=object), "tick": pd.Series(dtype="int64"),
                             "type": pd.Series(dtype=object), "event_name": pd.Series(dtype=object)})
        for k in keys:
            meta[k] = pd.Series(dtype=object)
    return _frame(parts, meta)


def read_ticks(paths, props, ticks=None, every=None, classes=None, errors="raise"):
    """A dask.dataframe of zdem.parse_ticks over paths, one partition each."""
    paths = [str(p) for p in paths]
    props = [props] if isinstance(props, str) else list(props)
    parts = [dask.delayed(_ticks, pure=True)(p, props, ticks, every, classes, errors) for p in paths]
    return _frame(parts, None)
