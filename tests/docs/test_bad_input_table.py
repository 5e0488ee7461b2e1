"""The manual's bad-input table (docs/MANUAL.md), row by row, against what ``bagel-studio import``
really does.

Every row of the table is either run here (a real input file of that kind, the CLI's own ``run``,
the exit status the row gives in brackets and the words the curator reads) or named with the test
that holds it (kills, full disks, concurrent writers need real processes). A row added to the
table without either fails the coverage test.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.docs.test_docs_current import section

ROOT = Path(__file__).resolve().parents[2]
CLIPS = ROOT / "resources" / "data" / "xeno_canto"

# rows that need real processes, held by these tests
HELD_ELSEWHERE = {
    "a full disk, a read-only project, an I/O error": "tests/core/test_storage_errors.py, "
    "tests/core/test_disk_full_tmpfs.py",
    "an import killed at any moment": "tests/core/importers/test_import_pending_checks.py, "
    "tests/core/store/test_lock_fork.py",
    "a second writer": "tests/core/test_lock_wait.py",
    "a signed release whose `manifest.json.sig` does not match its manifest": (
        "tests/core/importers/test_release_signing.py"
    ),
}


def rows() -> dict[str, str]:
    """{first cell: second cell} of the bad-input table."""
    table = {}
    for line in section("Bad input").splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 2 and not set(cells[0]) <= set("-: ") and cells[0] != "input":
            table[cells[0]] = cells[1]
    return table


def stated_status(row: str) -> int:
    match = re.search(r"\((\d)\)", rows()[row])
    assert match, f"row {row!r} gives no exit status in brackets"
    return int(match.group(1))


def item(i: int, **changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": f"w{i}",
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": f"Which food does animal number {i} prefer in the wild?",
        "options": [f"Seeds {i}", f"Leaves {i}", f"Fish {i}", f"Insects {i}"],
        "answer": "A",
    }
    return base | changes


def lines(*objects: dict[str, object]) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def good_and(tmp: Path, bad: bytes, name: str = "items.jsonl") -> list[str]:
    path = tmp / name
    path.write_bytes(lines(item(1)).encode() + bad + lines(item(3)).encode())
    return [str(path)]


def xc_metadata(tmp: Path) -> list[str]:
    """The bundled clips' metadata with the columns renamed as dataset builders export them
    (``xc_id``, ``File Name``...), and one item about a clip."""
    folder = tmp / "xc"
    folder.mkdir()
    with open(CLIPS / "recordings.csv", encoding="utf-8", newline="") as handle:
        source = list(csv.DictReader(handle))
    names = {"id": "xc_id", "gen": "genus", "sp": "species", "en": "English name"}
    names |= {"rec": "recordist", "lic": "license", "url": "URL", "file-name": "File Name"}
    with open(folder / "meta.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(names.values()))
        writer.writeheader()
        for row in source[:2]:
            writer.writerow({new: row[old] for old, new in names.items()})
            shutil.copy(CLIPS / row["file-name"], folder)
    clip = source[0]
    about = item(
        1,
        domain="Xeno-canto",
        dimension="Dominant frequency range",
        recording=f"XC{clip['id']}",
        question=f"What is the dominant frequency range of the song of {clip['en']}?",
        options=["~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "~9-11 kHz"],
    )
    (tmp / "items.jsonl").write_text(lines(about), encoding="utf-8")
    return [str(folder), str(tmp / "items.jsonl")]


def corrupt_clip(tmp: Path) -> list[str]:
    paths = xc_metadata(tmp)
    first = next(Path(paths[0]).glob("*.mp3"))
    first.write_bytes(first.read_bytes()[:2000])  # cut short
    return paths


def tampered_release(tmp: Path) -> list[str]:
    project = tmp / "source.bagel"
    (tmp / "in.jsonl").write_text(lines(*(item(i) for i in range(8))), encoding="utf-8")
    assert run(["import", str(project), str(tmp / "in.jsonl")]) == 0
    ids = [f"w{i}" for i in range(8)]
    assert run(["decide", str(project), *ids, "--curator", "ana", "--accept"]) == 0
    release = tmp / "release"
    assert run(["export", str(project), str(release), "--seed", "1"]) == 0
    everything = release / "data" / "all.jsonl"
    everything.write_text(everything.read_text(encoding="utf-8").replace("Seeds 1", "Seeds 7"))
    return [str(release)]


def release_without_manifest(tmp: Path) -> list[str]:
    paths = tampered_release(tmp)
    (Path(paths[0]) / "manifest.json").unlink()
    return paths


def nul_first(tmp: Path) -> list[str]:
    path = tmp / "items.jsonl"
    first = lines(item(2)).encode().replace(b"animal", b"ani\0mal")
    path.write_bytes(first + lines(item(1), item(3)).encode())
    return [str(path)]


def overlong_record(tmp: Path) -> list[str]:
    """A comma-separated GloBI table whose second record's quoted field runs over a line of
    11 MB."""
    path = tmp / "interactions.csv"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("sourceTaxonName,interactionTypeName,targetTaxonName,referenceCitation\n")
        handle.write("Bombus terrestris,visitsFlowersOf,Salix caprea,First\n")
        handle.write('Apis mellifera,visitsFlowersOf,"Trifolium\n' + "x" * 11_000_000)
        handle.write('\nrepens",Second\nVespa crabro,eats,Apis mellifera,Third\n')
    return [str(path)]


def already_in(tmp: Path, project: Path) -> list[str]:
    path = tmp / "items.jsonl"
    path.write_text(lines(item(1), item(2)), encoding="utf-8")
    assert run(["import", str(project), str(path)]) == 0
    return [str(path)]


def contradicting(tmp: Path, project: Path) -> list[str]:
    first = tmp / "first.jsonl"
    first.write_text(lines(item(1)), encoding="utf-8")
    assert run(["import", str(project), str(first)]) == 0
    other = tmp / "other.jsonl"
    other.write_text(lines(item(1, answer="B")), encoding="utf-8")
    return [str(other)]


def encodings(tmp: Path) -> list[str]:
    stem = "Which food does the caf\u00e9 ocelot prefer \u2013 in winter?"
    files = {
        "cp1252.jsonl": ("cp1252", "\r\n"),
        "latin1.jsonl": ("latin-1", "\r"),
        "macroman.jsonl": ("mac_roman", "\r"),
        "utf16.jsonl": ("utf-16", "\n"),
        "utf32.jsonl": ("utf-32", "\n"),
    }
    paths = []
    for n, (name, (encoding, newline)) in enumerate(files.items()):
        text = stem if encoding != "latin-1" else stem.replace("\u2013", "-")
        row = json.dumps(item(n, question=text), ensure_ascii=False)
        (tmp / name).write_bytes(
            (row + newline + row.replace(f'"w{n}"', f'"v{n}"')).encode(encoding)
        )
        paths.append(str(tmp / name))
    return paths


def written(tmp: Path, files: dict[str, bytes]) -> list[str]:
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    return [str(tmp / name) for name in files]


def big_document(tmp: Path) -> list[str]:
    """A 65 MB JSON array (sparse past its first lines: it is refused before being read)."""
    path = tmp / "items.json"
    with open(path, "wb") as handle:
        handle.write(b"[\n" + json.dumps(item(1)).encode() + b",\n" + b" " * 70_000 + b"\n")
        handle.truncate(65_000_000)
    return [str(path)]


def folder_with_metadata(tmp: Path) -> list[str]:
    folder = tmp / "run"
    folder.mkdir()
    (folder / "items.jsonl").write_text(lines(item(1), item(2)), encoding="utf-8")
    species = [{"species": f"Species {n}", "article": f"S{n}"} for n in range(20)]
    (folder / "species.jsonl").write_text(lines(*species), encoding="utf-8")
    return [str(folder)]


def fifo(tmp: Path) -> list[str]:
    os.mkfifo(tmp / "fifo.jsonl")
    return [str(tmp / "fifo.jsonl"), "/dev/zero"]


Scenario = Callable[[Path, Path], list[str]]
ENCODINGS = (
    "UTF-8, CP1252, Mac Roman, Latin-1; UTF-16 or UTF-32 with a byte order mark; LF, CRLF or CR"
)

# row -> (input maker, words the summary must hold)
SCENARIOS: dict[str, tuple[Scenario, str]] = {
    "a line that is not JSON, or cut short": (
        lambda tmp, _: good_and(tmp, b'{"id": "w2", "domain": "Wiki\n'),
        "JSON",
    ),
    "a line holding a NUL byte": (
        lambda tmp, _: good_and(tmp, lines(item(2)).encode().replace(b"animal", b"ani\0mal")),
        "NUL byte in the line",
    ),
    "a line longer than 10 MB (`--max-line-mb`), even a file that is one such line": (
        lambda tmp, _: good_and(tmp, lines(item(2, question="x" * 11_000_000)).encode()),
        "longer than the 10 MB",
    ),
    "a JSON document (an array, or an object spread over lines) larger than 64 MB"
    " (`--max-document-mb`)": (
        lambda tmp, _: big_document(tmp),
        "larger than the 64 MB a document may take (import --max-document-mb)",
    ),
    'a lone surrogate (`"\\ud800"`) in a string': (
        lambda tmp, _: good_and(tmp, lines(item(2)).encode().replace(b"animal", b"\\ud800")),
        "surrogate",
    ),
    "an `answer` (letter or text) that names another option than `answer_index`": (
        lambda tmp, _: good_and(tmp, lines(item(2, answer="B", answer_index=2)).encode()),
        "answer_index 2 name different options",
    ),
    "an item with a bad dimension, not four distinct options, no valid gold": (
        lambda tmp, _: good_and(
            tmp, lines(item(2, dimension="Colour", options=["a", "a", "b"], answer="Z")).encode()
        ),
        "Wikipedia: 3 added",
    ),
    "stems or options with bidi overrides or zero-width characters": (
        lambda tmp, _: good_and(tmp, lines(item(2, question="Which \u202eevil fox?")).encode()),
        "Wikipedia: 3 added",
    ),
    ENCODINGS: (
        lambda tmp, _: encodings(tmp),
        "Wikipedia: 10 added",
    ),
    "binary data, a table that is neither GloBI nor Xeno-canto": (
        lambda tmp, _: written(tmp, {"b.jsonl": bytes(range(256)) * 20, "t.csv": b"a,b\n1,2\n"}),
        "a table that is neither",
    ),
    "an empty file": (lambda tmp, _: written(tmp, {"e.jsonl": b""}), "empty file"),
    "JSON in a folder that holds no items, evidence or recording metadata (a species list,"
    " a dataset descriptor, a log)": (
        lambda tmp, _: folder_with_metadata(tmp),
        "species.jsonl: JSON with no items, evidence or recording metadata (20 objects; keys:"
        " species, article)",
    ),
    "Xeno-canto metadata with its columns spelled otherwise (`xc_id`, `File Name`, ...) or ids only"
    " inside file names or URLs": (
        lambda tmp, _: xc_metadata(tmp),
        "2 recordings",
    ),
    "a truncated or corrupt audio file": (
        lambda tmp, _: corrupt_clip(tmp),
        "audio-unreadable",
    ),
    "a device, FIFO or socket (`/dev/zero`), a missing path, a file name that is not UTF-8": (
        lambda tmp, _: fifo(tmp),
        "not a regular file",
    ),
    "a release folder whose files differ from its manifest": (
        lambda tmp, _: tampered_release(tmp),
        "fails verification",
    ),
    "a release folder without its manifest": (
        lambda tmp, _: release_without_manifest(tmp),
        "without its manifest.json",
    ),
    'a number of more than 100 digits (`"answer": 999…9`), one out of range (`1e999`), `NaN`'
    " or `Infinity`": (
        lambda tmp, _: good_and(tmp, lines(item(2)).encode().replace(b'"A"', b"9" * 5000, 1)),
        "5,000 digits",
    ),
    'a key given twice in one object (`"answer": "A", ..., "answer": "B"`)': (
        lambda tmp, _: good_and(
            tmp, lines(item(2)).encode().replace(b"}\n", b', "answer": "B"}\n')
        ),
        "given twice",
    ),
    "an `id` that is a list, an object or a boolean, or that holds an escaped NUL"
    ' (`"w1\\u0000x"`)': (
        lambda tmp, _: good_and(tmp, lines(item(2, id=["w2", "w9"])).encode()),
        "'id' must be text or a number",
    ),
    "a line that is not valid UTF-8 in a file that is UTF-8": (
        lambda tmp, _: good_and(
            tmp,
            (json.dumps(item(2, question="Où vit l'ocelot?"), ensure_ascii=False) + "\n")
            .encode()
            .replace(b"ocelot", b"\xffcelot"),
        ),
        "invalid UTF-8",
    ),
    "a raw NUL byte in the first line of a JSON Lines file": (
        lambda tmp, _: nul_first(tmp),
        "NUL byte in the line",
    ),
    "a table record with a quoted field spanning a line over the limit": (
        lambda tmp, _: overlong_record(tmp),
        "the whole record is not read",
    ),
    "the same file again; an item already in the project with the same content": (
        already_in,
        "already imported",
    ),
    "an item id already in the project with other content"
    " (a file that contradicts an earlier one)": (
        contradicting,
        "the project keeps that version",
    ),
}


def test_every_row_is_run_here_or_held_by_a_named_test() -> None:
    table = rows()
    assert len(table) >= 15
    missing = set(table) - set(SCENARIOS) - set(HELD_ELSEWHERE)
    assert missing == set()
    assert set(SCENARIOS) | set(HELD_ELSEWHERE) <= set(table)  # no scenario for a row now gone
    for tests in HELD_ELSEWHERE.values():
        for name in tests.split(", "):
            assert (ROOT / name).is_file(), name


@pytest.mark.parametrize("row", sorted(SCENARIOS))
def test_the_row_says_what_import_does(
    row: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, words = SCENARIOS[row]
    project = tmp_path / "p.bagel"
    paths = make(tmp_path, project)
    capsys.readouterr()
    status = run(["import", str(project), *paths])
    out = capsys.readouterr().out
    assert status == stated_status(row), out
    assert words in out
    if "good_and" in make.__code__.co_names:  # the good lines beside the bad one came in
        with Store.open(project, read_only=True) as store:
            assert store.items.present_ids(["w1", "w3"]) == {"w1", "w3"}
    if make is SCENARIOS[ENCODINGS][0]:  # read as written, whatever the encoding
        with Store.open(project, read_only=True) as store:
            stems = {item.content.question for item in store.items.iterate()}
        assert len(stems) == 2 and all("caf\u00e9 ocelot" in stem for stem in stems)
