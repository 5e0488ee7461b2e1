"""The C heap's thresholds while clips are measured: raised in a process whose environment fixed
them (as Dask's nanny does for its workers), that process's own back afterwards, and nothing
touched in a process that fixed none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.audio import heap

ROOT = Path(__file__).resolve().parents[3]

# Page faults of allocating, filling and freeing a 4 MiB array 40 times: outside the block, inside
# it, and after it, in one process started with the given environment.
FAULTS = """
import json, resource
import numpy as np
from bagel_studio.core.audio.heap import clip_heap

def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        block = np.ones(1 << 20, dtype=np.float32)
        del block
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

faults()  # numpy's own first-use faults
outside = faults()
with clip_heap():
    inside = faults()
print(json.dumps([outside, inside, faults()]))
"""


def page_faults(**environment: str) -> list[int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("GLIBC_TUNABLES", None)
    # numpy asks for transparent huge pages for arrays of 4 MiB and more: whether the kernel
    # has them free depends on what the machine did before (fragmented memory, or not), and
    # a huge page is one fault instead of 512; without them the count is the same every time
    env.update(environment, PYTHONPATH=str(ROOT), NUMPY_MADVISE_HUGEPAGE="0")
    done = subprocess.run(
        [sys.executable, "-c", FAULTS], env=env, capture_output=True, text=True, check=True
    )
    return [int(n) for n in done.stdout.strip().strip("[]").split(",")]


TUNABLE = "glibc.malloc.trim_threshold=65536"
needs_glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or heap._glibc() is None, reason="glibc's malloc only"
)


@needs_glibc
def test_a_fixed_trim_threshold_is_raised_while_clips_are_measured_and_given_back() -> None:
    # Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536: every 4 MiB array is a new mapping that
    # faults in anew (1,024 faults each, in 4 KiB pages), unless the block raised the threshold
    for environment in ({"MALLOC_TRIM_THRESHOLD_": "65536"}, {"GLIBC_TUNABLES": TUNABLE}):
        outside, inside, after = page_faults(**environment)
        assert outside > 40 * 128
        assert inside < outside / 10
        assert after > outside / 2  # the process's own threshold holds again


@needs_glibc
def test_a_process_that_fixed_no_threshold_is_left_to_glibc() -> None:
    outside, inside, after = page_faults()
    assert max(outside, inside, after) < 128  # glibc raised its threshold after the first free


def test_the_thresholds_a_process_fixed_are_read_from_its_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES"):
        monkeypatch.delenv(name, raising=False)
    assert heap.configured_thresholds() == {}
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=0x40000:glibc.x=1")
    assert heap.configured_thresholds() == {
        heap.M_TRIM_THRESHOLD: 65536,
        heap.M_MMAP_THRESHOLD: 0x40000,
    }
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "lots")  # glibc ignores it; so does this
    assert heap.configured_thresholds() == {heap.M_MMAP_THRESHOLD: 0x40000}
