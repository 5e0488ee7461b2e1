"""Species detection in ``analyze``: the same detections on a process pool and on a real Dask
cluster, each worker loading the BirdNET model once and keeping it for every later clip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from bagel_studio.core.audio import birdnet
from bagel_studio.core.operations import analyze_recordings
from bagel_studio.core.store import Store
from tests.core.audio.test_analyze import build


def detections(path: Path) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        rows = store.db.execute("SELECT audio_sha256, result FROM species_detections").fetchall()
    return {key: json.loads(result) for key, result in rows}


def loaded_model() -> int | None:
    """In a worker: the identity of its interpreter, None before its first clip."""
    return None if birdnet._model is None else id(birdnet._model)


@pytest.mark.slow
def test_a_pool_and_a_dask_cluster_detect_the_same_species(tmp_path: Path, data_dir: Path):
    local, remote, again = (build(tmp_path / name, data_dir) for name in ("l", "r", "a"))
    with Store.open(local) as store:
        pooled = analyze_recordings(store, workers=2).result
    assert pooled.detected == 5 and pooled.unreadable == 1  # the file that is not audio
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        assert set(client.run(loaded_model).values()) == {None}
        with Store.open(remote) as store:
            report = analyze_recordings(store, scheduler=cluster.scheduler_address).result
        assert report.detected == 5 and report.species_note is None
        first = client.run(loaded_model)
        with Store.open(again) as store:
            analyze_recordings(store, scheduler=cluster.scheduler_address)
        assert client.run(loaded_model) == first  # loaded once per worker, kept
    on_pool, on_dask = detections(local), detections(remote)
    assert on_dask.keys() == on_pool.keys() and len(on_pool) == 11  # key and sha; XC1: key
    for key, result in on_pool.items():
        if "error" in result:
            assert "error" in on_dask[key]
        else:
            assert on_dask[key] == result
