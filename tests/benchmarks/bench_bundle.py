"""Benchmark of issue 14: the bundle's size and its cold start, beside the installed package's.

Run: .venv/bin/python tests/benchmarks/bench_bundle.py [BUNDLE_DIR] [REPEATS]
(after ``bash packaging/build.sh``; BUNDLE_DIR defaults to dist/bagel-studio). Each time is the
median of REPEATS (default 3) fresh processes: ``--version`` (the start of the command line), and
``open PROJECT`` on the demo project, offscreen, until the desk's test hook has grabbed the window
showing the first item and quit (the hook waits 0.6 s before grabbing; that is subtracted). The
bundle runs with an empty environment; the baseline is this interpreter's installed package. The
load average is printed with them: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTLE_S = 0.6
TARGET_FIRST_ITEM_S = 5.0
TARGET_SIZE_MB = 600


def median_seconds(command: list[str], env: dict[str, str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def folder_mb(folder: Path) -> float:
    # PyInstaller links duplicate libraries as symlinks: count each file once, as du does.
    files = (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.lstat().st_size for p in files) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, nargs="?", default=ROOT / "dist" / "bagel-studio")
    parser.add_argument("repeats", type=int, nargs="?", default=3, help="fresh runs per figure")
    args = parser.parse_args()
    bundle, repeats = args.bundle, args.repeats
    executable = bundle / "bagel-studio"
    if not executable.is_file():
        sys.exit(f"bench_bundle: no bundle at {bundle} (bash packaging/build.sh builds one)")
    work = Path(tempfile.mkdtemp(prefix="bagel-bench-bundle-"))
    config = work / "config"
    config.mkdir()
    (config / "preferences.toml").write_text('curator = "bench"\n', encoding="utf-8")
    project = work / "demo.bagel"
    base_env = dict(os.environ, BAGEL_STUDIO_CONFIG_DIR=str(config), QT_QPA_PLATFORM="offscreen")
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pathlib; from bagel_studio.core.demo import "
            "build_demo_project as b; b(pathlib.Path(sys.argv[1]))",
            str(project),
        ],
        env=base_env,
        check=True,
        timeout=300,
    )
    bundle_env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(work),
        "LANG": "C.UTF-8",
        "BAGEL_STUDIO_CONFIG_DIR": str(config),
        "QT_QPA_PLATFORM": "offscreen",
    }
    installed = [sys.executable, "-m", "bagel_studio"]
    shot = {
        "BAGEL_STUDIO_SCREENSHOT": str(work / "first.png"),
        "BAGEL_STUDIO_WINDOW_SIZE": "1280x800",
    }

    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"{'':<34} {'bundle':>9} {'installed':>10}  target")
    version_b = median_seconds([str(executable), "--version"], bundle_env, repeats)
    version_i = median_seconds([*installed, "--version"], base_env, repeats)
    print(f"{'--version':<34} {version_b:>8.2f}s {version_i:>9.2f}s")
    open_b = (
        median_seconds([str(executable), "open", str(project)], {**bundle_env, **shot}, repeats)
        - SETTLE_S
    )
    open_i = median_seconds([*installed, "open", str(project)], {**base_env, **shot}, repeats)
    open_i -= SETTLE_S
    verdict = "ok" if open_b < TARGET_FIRST_ITEM_S else "OVER"
    print(
        f"{'cold start to the first item':<34} {open_b:>8.2f}s {open_i:>9.2f}s  "
        f"<{TARGET_FIRST_ITEM_S} s {verdict}"
    )
    size = folder_mb(bundle)
    verdict = "ok" if size < TARGET_SIZE_MB else "OVER"
    print(f"{'bundle unpacked':<34} {size:>7.0f}MB {'':>10}  <{TARGET_SIZE_MB} MB {verdict}")
    for packed in sorted((bundle.parent).glob("bagel-studio-*-linux-x86_64.tar.gz")):
        print(f"{packed.name:<34} {packed.stat().st_size / 1e6:>7.0f}MB")
    for wheel in sorted((bundle.parent).glob("bagel_studio-*.whl")):
        print(f"{wheel.name:<34} {wheel.stat().st_size / 1e6:>7.1f}MB")


if __name__ == "__main__":
    main()
