"""Building real project files for the export tests (no importer needed).

The flat item format (FORMATS.md section 1) is parsed here directly so these tests do not depend on
the importers package; the round-trip test uses the real importer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bagel_studio.core import operations
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, Store

CURATOR = "ada"
ROOT = Path(__file__).resolve().parents[3]

# Runs ``bagel-studio ARGS`` in a fresh interpreter that stops itself (SIGSTOP) when the export
# opens its first release file for writing inside its temporary folder, after the marker: the
# interrupting signal then lands mid-write on any machine, however fast or loaded.
_STOP_AT_FIRST_WRITE = """
import os, runpy, signal, sys
from pathlib import Path
MARKER, TEMPORARY = sys.argv.pop(1), sys.argv.pop(1)
stopped = False
def stop_at_first_write(event, args):
    global stopped
    if stopped or event != "open" or not isinstance(args[1], str) or "w" not in args[1]:
        return
    path = Path(os.fsdecode(args[0]))
    if path.name != MARKER and any(p.startswith(TEMPORARY) for p in path.parent.parts):
        stopped = True
        os.kill(os.getpid(), signal.SIGSTOP)
sys.addaudithook(stop_at_first_write)
sys.argv[0] = "bagel-studio"
runpy.run_module("bagel_studio", run_name="__main__", alter_sys=True)
"""


def interrupt_export(
    project: Path, out: Path, how: signal.Signals, *extra: str
) -> tuple[subprocess.Popen[bytes], Path]:
    """Export ``project`` to ``out`` in a process, send it ``how`` while it writes its first
    release file, wait for it to end; return the process and its temporary folder."""
    from bagel_studio.core.export.atomic import MARKER

    temporary_prefix = f"{out.name}.tmp-"
    command = [sys.executable, "-c", _STOP_AT_FIRST_WRITE, MARKER, temporary_prefix]
    command += ["export", str(project), str(out), "--seed", "5", *extra]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status = os.waitpid(process.pid, os.WUNTRACED)  # returns when it stops (or ends)
    if not os.WIFSTOPPED(status):
        process.returncode = os.waitstatus_to_exitcode(status)
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        raise AssertionError(f"the export ended before writing a file: {error}")
    temporary = list(out.parent.glob(f"{temporary_prefix}{process.pid}-*"))
    os.kill(process.pid, how)
    if how != signal.SIGKILL:
        os.kill(process.pid, signal.SIGCONT)  # a stopped process acts on the signal once resumed
    process.wait(timeout=120)
    if process.stderr is not None:
        process.stderr.close()
    assert len(temporary) == 1, temporary
    return process, temporary[0]


def flat_item(record: dict[str, Any]) -> NewItem:
    """A NewItem from one line of the flat format (answer given as a letter)."""
    options = tuple(record["options"])
    return NewItem(
        id=record["id"],
        domain=record["domain"],
        content=ItemContent(
            question=record["question"],
            options=options,
            answer_index=LETTERS.index(record["answer"]),
            dimension=record["dimension"],
            level=record.get("level"),
        ),
        recording_id=record.get("recording"),
    )


def release_files(folder: Path) -> dict[str, bytes]:
    """Every file of a release folder by its path in the folder, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def paper_items(data_dir: Path) -> list[NewItem]:
    return [flat_item(r) for r in read_jsonl(data_dir / "items" / "paper_examples.jsonl")]


def new_project(path: Path, items: Iterable[NewItem]) -> Store:
    store = Store.open(path)
    store.items.add_items(list(items), None)
    return store


def decide_all(
    store: Store,
    ids: Sequence[str],
    decision: Decision = Decision.ACCEPT,
    curator: str = CURATOR,
    reason: str | None = None,
) -> None:
    """One curator's decision on many items, in one transaction (fast for big projects)."""
    with store.transaction():
        for item_id in ids:
            operations.decide(store, item_id, curator, decision, reason=reason)


def synthetic_items(
    count: int,
    domain: str = "GloBI",
    gold: int = 1,
    dimension: str = "Masked participant identification",
) -> list[NewItem]:
    """``count`` well-formed items of one domain, all with their gold at ``gold``."""
    items = []
    for n in range(count):
        options = tuple(f"Taxon {n}-{k} sp." for k in "wxyz")
        items.append(
            NewItem(
                id=f"{domain.lower()}:synthetic:{n}",
                domain=domain,
                content=ItemContent(
                    f"Which taxon is the host in interaction {n}?",
                    options,
                    gold,
                    dimension,
                    "medium",
                ),
            )
        )
    return items


def varied_project(make: Callable[[Iterable[NewItem]], Store], data_dir: Path) -> Store:
    """Edits, a second curator, an adjudication, odd text, a generator record with paths."""
    items = paper_items(data_dir)
    first = items[0]
    items[0] = NewItem(
        id=first.id,
        domain=first.domain,
        content=first.content,
        source={"file": "/home/someone/gen/batch.jsonl", "n": 3, "tags": ["a\\b\\c.txt"]},
        source_file="/data/in/wikipedia.jsonl",
        source_line=12,
        recording_id=first.recording_id,
    )
    store = make(items)
    ids = store.items.ids()
    decide_all(store, ids)
    edited = store.items.get(ids[1]).content.with_changes(
        question='Quotes "here", a tab\there, ünïcödé and \u2028 too?'
    )
    operations.edit(store, ids[1], "ada", edited)
    operations.decide(store, ids[1], "ada", Decision.REVISE, note="fixed\nthe stem")
    operations.decide(store, ids[2], "bob", Decision.ACCEPT)
    operations.decide(store, ids[3], "bob", Decision.REJECT, reason="ambiguous")
    options = store.items.get(ids[3]).content.options
    adjudicated = store.items.get(ids[3]).content.with_changes(options=options[::-1])
    operations.adjudicate(store, ids[3], "carol", Decision.REVISE, content=adjudicated)
    return store
