"""Benchmark: closed-book evaluation of 11,852 items (BAGEL's size) against the scripted
OpenAI-compatible server, with no think time, in a separate process.

Prints items per second at concurrency 1, 8 and 32, the studio's own CPU time per item (prompt,
openai client, parsing, SQLite commits), the peak RSS of the process that evaluates (a fresh
one, without the set-up and the baseline), and the requests a resumed run over the
finished project makes. Baseline: the same prompts through the bare openai client from the same
number of threads, nothing parsed or stored. Targets: at least 200 items/s at concurrency 32, peak
RSS under 400 MB, zero requests when resumed. Run:
``.venv/bin/python tests/benchmarks/bench_llm.py [ITEMS]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.domains import DIMENSIONS, PAPER_DOMAIN_COUNTS  # noqa: E402
from bagel_studio.core.llm.evaluate import evaluate, questions  # noqa: E402
from bagel_studio.core.llm.profiles import Profile  # noqa: E402
from bagel_studio.core.model import ItemContent  # noqa: E402
from bagel_studio.core.store import NewItem, Store  # noqa: E402
from tests.benchmarks.peak_memory import own_peak_mb  # noqa: E402

TARGET_ITEMS_PER_S = 200.0
TARGET_RSS_MB = 400.0
CONCURRENCY = (1, 8, 32)


def synthetic(count: int) -> list[NewItem]:
    total = sum(PAPER_DOMAIN_COUNTS.values())
    items = []
    for domain, share in PAPER_DOMAIN_COUNTS.items():
        for n in range(round(count * share / total)):
            options = tuple(f"{domain} option {k} of item {n}, a plausible answer" for k in "abcd")
            question = f"In {domain} item {n}, which of these statements about the species holds?"
            content = ItemContent(question, options, n % 4, DIMENSIONS[domain][0])
            items.append(NewItem(id=f"{domain.lower()}:{n}", domain=domain, content=content))
    return items[:count]


def start_server() -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.llm_server"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def requests_made(url: str) -> int:
    with urllib.request.urlopen(f"{url}/_stats") as response:
        return int(json.loads(response.read())["total"])


def baseline(url: str, prompts: list[str], concurrency: int) -> float:
    """Items/s of the bare openai client, same prompts and threads, nothing stored."""
    import openai

    client = openai.OpenAI(base_url=url, api_key="none", max_retries=0)

    def ask(prompt: str) -> str | None:
        response = client.chat.completions.create(
            model="always-A",
            messages=[{"role": "user", "content": prompt}],
            max_tokens=16,
            temperature=0,
            seed=0,
        )
        return response.choices[0].message.content

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(ask, prompts))
    elapsed = time.perf_counter() - started
    client.close()
    return len(prompts) / elapsed


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(path: Path, url: str) -> dict[str, Any]:
    """The studio's part, run in a fresh process (``--measure``): an evaluation at each
    concurrency, then a resumed one; their speeds, and this process's own peak memory (not
    the set-up's or the baseline's: see peak_memory)."""
    runs = []
    with Store.open(path, owner="bench") as store:
        wanted = questions(store)
        for concurrency in CONCURRENCY:
            profile = Profile(f"c{concurrency}", "always-A", url, concurrency=concurrency)
            cpu = cpu_seconds()
            started = time.perf_counter()
            summary = evaluate(store, profile, wanted)
            elapsed = time.perf_counter() - started
            cpu_per_item = 1000 * (cpu_seconds() - cpu) / max(summary.asked, 1)
            assert summary.asked == len(wanted) and summary.failed == 0, summary.to_json()
            runs.append((concurrency, summary.asked / elapsed, cpu_per_item))
        before = requests_made(url)
        started = time.perf_counter()
        resumed = evaluate(store, Profile("c32", "always-A", url, concurrency=32), wanted)
        resume_s = time.perf_counter() - started
        made = requests_made(url) - before
    return {
        "runs": runs,
        "made": made,
        "asked": resumed.asked,
        "resume_s": resume_s,
        "peak_mb": own_peak_mb(),
    }


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(Path(sys.argv[2]), sys.argv[3])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=int, nargs="?", default=sum(PAPER_DOMAIN_COUNTS.values()))
    count = parser.parse_args().items
    process, url = start_server()
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.bagel"
            with Store.open(path, owner="bench") as store:
                store.items.add_items(synthetic(count), None)
                wanted = questions(store)
            prompts = [q.prompt() for q in wanted]
            load = Path("/proc/loadavg").read_text().split()[:3]
            print(f"{len(wanted)} items; load average {' '.join(load)}")
            done = subprocess.run(
                [sys.executable, __file__, "--measure", str(path), url],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(done.stderr)
            result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{'concurrency':>11} {'studio items/s':>15} {'baseline items/s':>17} "
              f"{'studio CPU ms/item':>19}")  # fmt: skip
        for concurrency, items_per_s, cpu_per_item in result["runs"]:
            base = baseline(url, prompts[: min(len(prompts), 3000)], concurrency)
            print(f"{concurrency:>11} {items_per_s:>15.0f} {base:>17.0f} "
                  f"{cpu_per_item:>19.2f}")  # fmt: skip
        made, asked, resume_s = result["made"], result["asked"], result["resume_s"]
        print(f"resumed run over the finished project: {made} requests, {asked} asked, "
              f"{resume_s:.2f} s (target: 0 requests)")  # fmt: skip
        print(f"peak RSS of the evaluating process {result['peak_mb']:.0f} MB "
              f"(target < {TARGET_RSS_MB:.0f} MB); "
              f"target >= {TARGET_ITEMS_PER_S:.0f} items/s at concurrency 32")  # fmt: skip
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
