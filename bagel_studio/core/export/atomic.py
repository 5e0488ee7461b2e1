"""Writing a release folder all at once or not at all.

Files go into a sibling temporary folder ``OUTDIR.tmp-PID-XXXX``, each one fsynced, and the folder
is renamed into place only when complete, so a killed export never leaves a partial OUTDIR: at
worst a temporary folder, named as such and marked inside (``MARKER``: the writer's process id and
start time), which the next export into the same parent folder removes once that process is gone
(a process id reused by another program does not keep it alive). The release folder gets the
permissions of any new folder (``0o777`` less the umask), not the private ``0o700`` of a
temporary one.
Replacing an existing release (``force``) renames the old one to ``OUTDIR.old-PID-XXXX`` first,
renames the new one in, then deletes the old one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from bagel_studio.core.export.plan import ExportError

MARKER = ".bagel-studio-export"  # inside a temporary release folder: who is writing it


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
        try:
            self.path.chmod(0o777 & ~_umask())
            owner = {"pid": os.getpid(), "started": _start_time(os.getpid())}
            (self.path / MARKER).write_text(json.dumps(owner), encoding="utf-8")
        except BaseException:
            self.discard()
            raise
        self.hashes: dict[str, dict[str, int | str]] = {}
        # Files are made durable on threads while the export goes on (fsync waits on the disk
        # and lets other threads run); ``commit`` waits for every one before the rename.
        self._syncs: list[Future[None]] = []
        self._syncing: ThreadPoolExecutor | None = None

    def write(self, relative: str, data: bytes) -> None:
        """Write one file (made durable before ``commit``) and remember its SHA-256 and size
        for the manifest."""
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
        self._sync(target)
        self.hashes[relative] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def _sync(self, path: Path) -> None:
        if sys.platform == "win32":  # pragma: no cover - fsync needs a file open for writing
            with open(path, "rb+") as handle:
                os.fsync(handle.fileno())
            return
        if self._syncing is None:
            self._syncing = ThreadPoolExecutor(4, thread_name_prefix="export-fsync")
        self._syncs.append(self._syncing.submit(_fsync_file, path))

    def _synced(self) -> None:
        """Wait until every file written is durable (raising the first failure)."""
        try:
            for sync in self._syncs:
                sync.result()
        finally:
            self._syncs = []
            if self._syncing is not None:
                self._syncing.shutdown(wait=True, cancel_futures=True)
                self._syncing = None

    @contextlib.contextmanager
    def stream(self, relative: str) -> Iterator[Callable[[bytes | memoryview], None]]:
        """Write one file piece by piece: yields ``write(data)``; on leaving, the file is made
        durable and its SHA-256 and size are remembered, as ``write`` does for a whole file.
        The pieces go to the file as they come (the release's are hundreds of KB each: a
        buffer would only copy them once more)."""
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        with open(target, "wb", buffering=0) as handle:

            def write(data: bytes | memoryview) -> None:
                nonlocal size
                digest.update(data)
                size += len(data)
                view = memoryview(data)
                while view:
                    written = handle.write(view)
                    if written is None:  # pragma: no cover - a regular file does not block
                        raise BlockingIOError(f"{target}: the write would block")
                    view = view[written:]

            yield write
        self._sync(target)
        self.hashes[relative] = {"sha256": digest.hexdigest(), "bytes": size}

    def commit(self) -> Path:
        """Put the folder in place of OUTDIR (replacing an existing one) and return OUTDIR."""
        self._synced()
        (self.path / MARKER).unlink(missing_ok=True)
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
        with contextlib.suppress(OSError):
            self._synced()
        shutil.rmtree(self.path, ignore_errors=True)


_LEFTOVER = re.compile(r"\.(tmp|old)-(\d+)-[^/]*")


def remove_stale(out_dir: Path) -> list[Path]:
    """Delete temporary folders that killed exports left beside OUTDIR.

    Only folders whose process is gone are touched: those named for OUTDIR, and any other
    export's temporary folder in the same parent that carries the ``MARKER``. An old release
    (``.old-``) is deleted only when OUTDIR itself exists, since otherwise it may be the only copy.
    """
    removed: list[Path] = []
    parent = out_dir.parent
    if not parent.is_dir():
        return removed
    for entry in parent.iterdir():
        ours = entry.name.startswith(out_dir.name + ".")
        match = _LEFTOVER.search(entry.name[len(out_dir.name) :] if ours else entry.name)
        if match is None or not entry.is_dir() or (ours and match.start() != 0):
            continue
        if match[1] == "old":
            if not ours or not out_dir.exists() or _alive(int(match[2])):
                continue
        elif not _abandoned(entry, int(match[2]), named_for_out_dir=ours):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _abandoned(folder: Path, pid: int, *, named_for_out_dir: bool) -> bool:
    """True when the export writing ``folder`` is gone (its marker tells which process it was)."""
    try:
        owner = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        # unmarked: killed before it wrote the marker, or not an export's folder at all
        return named_for_out_dir and not _alive(pid)
    if not isinstance(owner, dict) or owner.get("pid") != pid:
        return False
    if not _alive(pid):
        return True
    started = owner.get("started")
    return started is not None and pid != os.getpid() and _start_time(pid) != started


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), to tell a reused id apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _umask() -> int:
    """The process's umask: from /proc where it is shown, else by setting and restoring it."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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


def _fsync_file(path: Path) -> None:
    """Make a written file durable (Linux and macOS flush a file's data from any descriptor)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(path, os.O_RDONLY)
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
