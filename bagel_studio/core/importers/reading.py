"""Reading an input file once: hashed as it is parsed, and known again without being read.

An import records each file's SHA-256, so that the same content is never imported twice. The
hash is computed by the pass that parses the file (``HashingReader``): a file is read once, not
hashed first and then read again. What a re-import needs to pass over a file unread is its stat
(``file_stat``): size, modification and change times in nanoseconds, inode and device, noted
with the import whose content the file held. A file whose stat is the same still holds that
content, since writing to a file always moves its change time, which no program can set back
(``touch`` and ``os.utime`` set the modification time, and move the change time doing it).

Two cases are kept out of that rule. A file changed within the clock's resolution of being read
could keep its times: a stat is only noted when both times are ``SETTLED_NS`` older than the
read (``settled``), and the file's stat after the read is the one before. And a file whose stat
is not known (new, copied, touched) may still hold content imported before: when an earlier
import read a file of the same size, it is hashed first (one read) and passed over if that
content is known, parsed otherwise (read a second time). A file of a size no import has read
cannot hold the same content, and is parsed and hashed in one pass.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from bagel_studio.core.importers.textio import CHUNK_BYTES, Readable

# A stat is noted only when the file's times are older than this at the read: a change within
# the file system's time resolution of the read (coarse clocks, FAT's 2 s) cannot hide behind it.
SETTLED_NS = 2_000_000_000

Stat = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device


def file_stat(result: os.stat_result) -> Stat:
    """What a file's stat says about its content: size, modification and change times in ns,
    inode and device. A file whose stat is the one an earlier import noted is passed over
    unread."""
    return (
        result.st_size,
        result.st_mtime_ns,
        result.st_ctime_ns,
        result.st_ino,
        result.st_dev,
    )


def settled(stat: Stat) -> bool:
    """Whether the file's times are old enough for its stat to stand for its content."""
    return time.time_ns() - max(stat[1], stat[2]) >= SETTLED_NS


class ReadCounter:
    """Bytes of input read in one import run (hashing and parsing; not the sniffed heads)."""

    def __init__(self) -> None:
        self.bytes = 0


class HashingReader:
    """A binary file read start to end, each byte once: every read is hashed (SHA-256), counted
    and reported to ``progress`` (the bytes read so far). ``finish`` reads whatever the parser
    left (past a head, after a reject) to complete the hash."""

    def __init__(
        self,
        handle: Readable,
        counter: ReadCounter | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self._handle = handle
        self._digest = hashlib.sha256()
        self._counter = counter
        self._progress = progress
        self.consumed = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self._handle.read(size)
        if data:
            self._digest.update(data)
            self.consumed += len(data)
            if self._counter is not None:
                self._counter.bytes += len(data)
            if self._progress is not None:
                self._progress(self.consumed)
        return data

    def finish(self) -> str:
        """The SHA-256 of the whole file, reading the rest of it first."""
        while self.read(CHUNK_BYTES):
            pass
        return self._digest.hexdigest()


class FileHashes:
    """SHA-256 of the files one run has read, each computed once (again if its stat moved)."""

    def __init__(self, counter: ReadCounter | None = None) -> None:
        self._known: dict[Path, tuple[Stat, str]] = {}
        self._counter = counter

    def sha256(self, path: Path) -> str:
        stat = file_stat(os.stat(path))
        known = self._known.get(path)
        if known is not None and known[0] == stat:
            return known[1]
        with open(path, "rb") as handle:
            sha = HashingReader(handle, self._counter).finish()
        self._known[path] = (stat, sha)
        return sha

    def note(self, path: Path, stat: Stat, sha: str) -> None:
        """``path`` had ``stat`` and the content ``sha`` when this run read it."""
        self._known[path] = (stat, sha)

    def get(self, path: Path) -> str | None:
        known = self._known.get(path)
        return known[1] if known is not None else None
