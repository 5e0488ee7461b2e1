"""Benchmark: an evaluation against a server that accepts requests and never answers.

The scripted OpenAI-compatible server holds every request without replying. The same run is
timed with the stop after timed-out items in a row turned off (the baseline: how every run
behaved before it existed, each item costing (retries + 1) x timeout plus the backoff) and at
its default (3 items in a row). Timeout and retries are scaled down (0.5 s, 1 retry) so that the
baseline ends; the figures at the defaults (60 s, 4 retries, concurrency 8) are projected from
the requests each run made. Target: the run stops within a few rounds of requests, whatever the
number of items. Run: ``.venv/bin/python tests/benchmarks/bench_stuck_server.py [ITEMS]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.llm.client import RetryPolicy  # noqa: E402
from bagel_studio.core.llm.evaluate import evaluate, questions  # noqa: E402
from bagel_studio.core.llm.profiles import Profile  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from tests.benchmarks.bench_llm import synthetic  # noqa: E402
from tests.support.llm_server import ScriptedServer  # noqa: E402

TIMEOUT, RETRIES, CONCURRENCY = 0.5, 1, 8
DEFAULT_TIMEOUT, DEFAULT_RETRIES = 60.0, 4
BAGEL_ITEMS = 11_852


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def per_item(timeout: float, retries: int) -> float:
    """Seconds one item costs when no attempt is answered: every attempt and the backoff."""
    policy = RetryPolicy(retries=retries)
    waits = sum(min(policy.backoff * 2**k, policy.max_wait) for k in range(retries))
    return (retries + 1) * timeout + waits


def run(path: Path, url: str, stop: int) -> tuple[float, float, int]:
    """(wall s, CPU s, items asked) of one evaluation."""
    profile = Profile(f"stop{stop}", "gold", url, timeout=TIMEOUT, concurrency=CONCURRENCY)
    with Store.open(path, owner="bench") as store:
        wanted = questions(store)
        cpu, started = cpu_seconds(), time.perf_counter()
        summary = evaluate(store, profile, wanted, policy=RetryPolicy(retries=RETRIES),
                           stop_after_timeouts=stop)  # fmt: skip
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    assert summary.failed == summary.asked and (summary.stopped is not None) == bool(stop)
    return wall, cpu, summary.asked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=int, nargs="?", default=200)
    count = parser.parse_args().items
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with tempfile.TemporaryDirectory() as folder, ScriptedServer() as server:
        server.keep_bodies = False
        server.fail_next("slow", times=10**9, seconds=3600)  # accepts, never answers
        path = Path(folder) / "bench.bagel"
        with Store.open(path, owner="bench") as store:
            store.items.add_items(synthetic(count), None)
        print(f"{count} items; load average {load}; timeout {TIMEOUT:g} s, {RETRIES} retry, "
              f"concurrency {CONCURRENCY}")  # fmt: skip
        print(f"{'run':>28} {'wall s':>8} {'CPU s':>7} {'items asked':>12} "
              f"{'projected at the defaults, 11,852 items':>40}")  # fmt: skip
        for label, stop in (("baseline (never stops)", 0), ("stop after 3 in a row", 3)):
            wall, cpu, asked = run(path, server.url, stop)
            rounds = (BAGEL_ITEMS if not stop else asked) / CONCURRENCY
            projected = rounds * per_item(DEFAULT_TIMEOUT, DEFAULT_RETRIES)
            shown = f"{projected / 3600:.1f} h" if projected > 7200 else f"{projected / 60:.0f} min"
            print(f"{label:>28} {wall:>8.1f} {cpu:>7.2f} {asked:>12} {shown:>40}")
        print(
            f"target: the stopped run asks at most {3 + 2 * CONCURRENCY} items, whatever the "
            "number of items"
        )
        server.clear_faults()


if __name__ == "__main__":
    main()
