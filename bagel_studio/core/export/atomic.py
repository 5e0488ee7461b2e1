"""Writing a release folder all at once or not at all.

Files go into a sibling temporary folder ``OUTDIR.tmp-PID-XXXX``, each one fsynced, and the folder
is renamed into place only when complete, so a killed export never leaves a partial OUTDIR: at
worst a temporary folder, named as such and removed by the next export once its process is gone.
Replacing an existing release (``force``) renames the old one to ``OUTDIR.old-PID-XXXX`` first,
renames the new one in, then deletes the old one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from bagel_studio.core.export.plan import ExportError


class OutDirExistsError(ExportError):
    """OUTDIR exists and holds files, and replacing it was not asked for (or is not allowed)."""


def check_out_dir(out_dir: Path, force: bool, project: Path | None = None) -> None:
    """Refuse an OUTDIR that is a file, or non-empty without ``force``, or holds the project."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutDirExistsError(f"{out_dir} exists and is not a folder")
    # resolved: OUTDIR written with ".." or through a symbolic link is still the project's folder
    if (
        project is not None
        and out_dir.exists()
        and project.resolve().is_relative_to(out_dir.resolve())
    ):
        raise OutDirExistsError(f"{out_dir} holds the project itself; choose another folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise OutDirExistsError(
            f"{out_dir} exists and is not empty; choose another folder or replace it (--force)"
        )


class ReleaseFolder:
    """A temporary folder that becomes OUTDIR on ``commit`` and vanishes on ``discard``."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir.absolute()
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(self.out_dir)
        prefix = f"{self.out_dir.name}.tmp-{os.getpid()}-"
        self.path = Path(tempfile.mkdtemp(prefix=prefix, dir=self.out_dir.parent))
        self.hashes: dict[str, dict[str, int | str]] = {}

    def write(self, relative: str, data: bytes) -> None:
        """Write one file (durably) and remember its SHA-256 and size for the manifest."""
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        self.hashes[relative] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def commit(self) -> Path:
        """Put the folder in place of OUTDIR (replacing an existing one) and return OUTDIR."""
        for folder in sorted({p.parent for p in self.path.rglob("*")} | {self.path}):
            _fsync_dir(folder)
        old: Path | None = None
        if self.out_dir.exists():
            if any(self.out_dir.iterdir()):
                old = Path(
                    tempfile.mkdtemp(
                        prefix=f"{self.out_dir.name}.old-{os.getpid()}-", dir=self.out_dir.parent
                    )
                )
                old.rmdir()
                os.replace(self.out_dir, old)
            else:
                self.out_dir.rmdir()
        os.replace(self.path, self.out_dir)
        _fsync_dir(self.out_dir.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.out_dir

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


_LEFTOVER = re.compile(r"\.(tmp|old)-(\d+)-[^/]*")


def remove_stale(out_dir: Path) -> list[Path]:
    """Delete temporary folders that exports of OUTDIR left behind when they were killed.

    Only folders whose process is gone are touched; an old release (``.old-``) is deleted only
    when OUTDIR itself exists, since otherwise it may be the only copy.
    """
    removed: list[Path] = []
    parent = out_dir.parent
    if not parent.is_dir():
        return removed
    for entry in parent.iterdir():
        if not entry.name.startswith(out_dir.name + "."):
            continue
        match = _LEFTOVER.fullmatch(entry.name[len(out_dir.name) :])
        if match is None or not entry.is_dir() or _alive(int(match[2])):
            continue
        if match[1] == "old" and not out_dir.exists():
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # pragma: no cover - no cheap check; keep the folder
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(path, os.O_RDONLY)
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
