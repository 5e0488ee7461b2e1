"""``bagel-studio analyze``: every clip of a project measured on a process pool or a real Dask
cluster, the results stored by the one writing process, and an interrupted run resumed."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from distributed import LocalCluster

from bagel_studio.core.audio import measurement_for
from bagel_studio.core.cli import run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.operations import analyze_recordings
from bagel_studio.core.store import NewItem, Store

CLIPS = ("XC132865", "XC143244", "XC150351", "XC218796", "XC625750")
OPTIONS = ("~30-40 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")


def build(folder: Path, data_dir: Path) -> Path:
    """Five real clips, one file that is not audio, one recording whose file is gone; two
    items per recording."""
    folder.mkdir(parents=True, exist_ok=True)
    recordings = []
    for clip in CLIPS:
        shutil.copy(data_dir / "xeno_canto" / f"{clip}.mp3", folder / f"{clip}.mp3")
        recordings.append(_recording(clip, folder / f"{clip}.mp3"))
    (folder / "XC1.mp3").write_bytes(b"not audio at all" * 64)
    recordings.append(_recording("XC1", folder / "XC1.mp3"))
    recordings.append(_recording("XC2", folder / "XC2.mp3"))  # never there
    path = folder / "project.bagel"
    with Store.open(path) as store:
        store.evidence.upsert_recordings(recordings, None)
        items = []
        for recording in recordings:
            for n in range(2):
                content = ItemContent(
                    "What is the dominant frequency range of this call?",
                    OPTIONS,
                    n,
                    "Dominant frequency range",
                )
                items.append(
                    NewItem(
                        f"xc:{recording['id']}:{n}",
                        "Xeno-canto",
                        content,
                        recording_id=str(recording["id"]),
                    )
                )
        store.items.add_items(items, None)
    return path


def _recording(rec_id: str, path: Path) -> dict[str, object]:
    return {"id": rec_id, "scientific_name": "Passer domesticus", "audio_path": str(path)}


def measurements(path: Path) -> dict[str, dict[str, object]]:
    """{cache key: result} as stored, without the time of computing."""
    with Store.open(path, read_only=True) as store:
        rows = store.db.execute("SELECT audio_sha256, result FROM audio_measurements").fetchall()
    return {key: json.loads(result) for key, result in rows}


@pytest.mark.slow
def test_analyze_measures_every_clip_on_a_pool_and_resumes(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path / "pool", data_dir)
    assert run(["analyze", str(path), "--workers", "2"]) == 1  # one unreadable, one missing
    out, err = capsys.readouterr()
    assert "5 clips measured, 1 unreadable, 0 measured before, 1 without an audio file" in out
    assert "unreadable: XC1.mp3" in out and "no audio file: XC2" in out
    assert "6/6 clips" in err
    stored = measurements(path)
    assert sum("error" not in r for r in stored.values()) == 2 * len(CLIPS)  # key and sha
    with Store.open(path, read_only=True) as store:
        for clip in CLIPS:
            assert measurement_for(store, clip, compute=False) is not None
        flagged = {item for item, flag in store.flags.all() if flag.check == "acoustic-mismatch"}
        assert "xc:XC132865:0" not in flagged or "xc:XC132865:1" not in flagged
        assert any(f.check == "audio-unreadable" for f in store.flags.of_item("xc:XC1:0"))

    assert run(["analyze", str(path)]) == 1  # again: nothing left but the missing file
    out, _ = capsys.readouterr()
    assert "0 clips measured, 0 unreadable, 6 measured before, 1 without an audio file" in out
    assert measurements(path) == stored


def test_an_interrupted_analysis_keeps_what_it_measured(tmp_path: Path, data_dir: Path) -> None:
    path = build(tmp_path / "stop", data_dir)

    def interrupt(done: int, _total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with Store.open(path) as store, pytest.raises(KeyboardInterrupt):
        analyze_recordings(store, workers=1, progress=interrupt)
    assert len(measurements(path)) >= 2  # the two clips finished are kept
    with Store.open(path) as store:
        report = analyze_recordings(store, workers=1).result
    assert report.already == 2 and report.measured + report.unreadable == 4


@pytest.mark.slow
def test_a_dask_cluster_gives_the_results_of_the_local_pool(tmp_path: Path, data_dir: Path) -> None:
    local = build(tmp_path / "local", data_dir)
    remote = build(tmp_path / "remote", data_dir)
    with Store.open(local) as store:
        analyze_recordings(store, workers=2)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Store.open(remote) as store,
    ):
        report = analyze_recordings(store, scheduler=cluster.scheduler_address).result
    assert (report.measured, report.unreadable, report.missing) == (5, 1, ["XC2"])
    on_pool, on_dask = measurements(local), measurements(remote)
    assert on_dask.keys() == on_pool.keys()
    for key, result in on_pool.items():
        if "error" in result:  # the error names the file, in its own folder
            assert "error" in on_dask[key]
        else:
            assert on_dask[key] == result


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_usage_error(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path / "p", data_dir)
    assert run(["analyze", str(path), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert measurements(path) == {}
    assert run(["analyze", str(path), "--workers", "0"]) == 2


def test_a_cancelled_analysis_stores_what_it_measured_through_the_given_writer(
    tmp_path: Path, data_dir: Path
) -> None:
    """The desk's way: cancel from another thread, every write through its one writer."""
    path = build(tmp_path / "cancel", data_dir)
    cancel = threading.Event()
    writes: list[str] = []

    def stop_after_two(done: int, _total: int) -> None:
        if done == 2:
            cancel.set()

    def write(call: Callable[[], object]) -> object:
        writes.append(threading.current_thread().name)
        return call()

    with Store.open(path) as store:
        report = analyze_recordings(
            store, workers=1, progress=stop_after_two, cancel=cancel, write=write
        ).result
    assert report.cancelled and report.measured + report.unreadable == 2
    assert writes and len(measurements(path)) >= 2
    with Store.open(path) as store:
        report = analyze_recordings(store, workers=1).result
    assert not report.cancelled
    assert report.already == 2 and report.measured + report.unreadable == 4
