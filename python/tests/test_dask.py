"""zdem.dask on a distributed.LocalCluster with 2 worker processes: the
result equals the per-file results concatenated (the per-file results are
themselves checked against the references in test_source2.py)."""
import glob
import os

import pandas as pd
import pytest

import zdem
import zdem.dask


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def source2_files(corpus):
    files = sorted(glob.glob(os.path.join(corpus, "source2", "*.dem")))
    assert len(files) >= 9
    return files


def expected(fn, paths):
    frames = []
    for p in paths:
        df = fn(p)
        df.insert(0, "demo", p)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def test_read_ticks_on_local_cluster(client, corpus):
    paths = [p for p in source2_files(corpus) if os.path.basename(p).startswith("cs2_")]
    props = ["X", "Y", "Z", "health", "team_num", "name"]
    ddf = zdem.dask.read_ticks(paths, props)
    assert ddf.npartitions == len(paths)
    got = ddf.compute().reset_index(drop=True)
    want = expected(lambda p: zdem.parse_ticks(p, props), paths)
    pd.testing.assert_frame_equal(got, want)
    # where the work ran: both workers took part
    assert len(client.scheduler_info()["workers"]) == 2


def test_read_events_on_local_cluster(client, corpus):
    paths = source2_files(corpus)
    ddf = zdem.dask.read_events(paths, names=["round_freeze_end", "player_death", "server_cvar"],
                                keys=["name", "value", "attacker", "userid"])
    got = ddf.compute().reset_index(drop=True)
    want = expected(lambda p: zdem.parse_events(p, names=["round_freeze_end", "player_death", "server_cvar"])
                    .reindex(columns=["tick", "type", "event_name", "name", "value", "attacker", "userid"]), paths)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert len(got) > 0 and set(got["demo"]) <= set(paths)
    all_ev = zdem.dask.read_events(paths[:3]).compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(all_ev, expected(zdem.parse_events, paths[:3]), check_dtype=False)


def test_kills_by_attacker_steamid(client, corpus):
    """The README's and zdem.dask's example: kills (and hurts) grouped by
    the attacker's SteamID across demos, with keys= and with names= alone
    (the first demo has no such event: the columns come from the first
    that has), equal to pandas on the per-file results."""
    paths = [p for p in source2_files(corpus) if os.path.basename(p).startswith("cs2_")]
    names = ["player_death", "player_hurt"]
    want = expected(lambda p: zdem.parse_events(p, names=names), paths)
    assert want["attacker_steamid"].notna().any()  # Partridge, the one human, hurts bots
    ref = want.groupby("attacker_steamid").size()
    ev = zdem.dask.read_events(paths, names=names, keys=["attacker_steamid", "attacker_name", "weapon"])
    got = ev.groupby("attacker_steamid").size().compute()
    assert {int(k): int(v) for k, v in got.items()} == {int(k): int(v) for k, v in ref.items()}
    ev = zdem.dask.read_events(paths, names=names)
    got = ev.groupby("attacker_steamid").size().compute()
    assert {int(k): int(v) for k, v in got.items()} == {int(k): int(v) for k, v in ref.items()}
    by_name = ev.groupby("attacker_name").size().compute()
    assert by_name.sum() == want["attacker_name"].notna().sum() and len(by_name) > 1
