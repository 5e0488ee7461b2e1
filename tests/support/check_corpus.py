"""The labeled check corpus (``tests/data/check_corpus``): its truth file, its item files, and
the scripted models that answer its items as the truth file says.

The corpus is read here as data, never through the checks: the truth file says, per item, which
checks a careful curator expects it to raise (``raise``), which ones may fire as a consequence of
its one planted flaw without being wrong (``allow``), and which ones the item was written to tempt
(``tempts``; every check not in ``raise`` or ``allow`` should stay silent, tempted or not).
``script`` holds what the project's operations record before the checks run: the reference
models' closed-book answers (``models``), their answers from the options alone (``options_only``),
a judge's verdict (``judge``) and curators' blind answers (``blind``), each naming an option by its
text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.llm_server import LETTERS, ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "check_corpus"
TRUTH = CORPUS / "truth.jsonl"
SPLITS = (
    "dev",
    "holdout",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
)
# The parts the checks have been tuned on or read for (fresh to fresh5 were unseen until their
# one measurement and have been read since); every other split is unseen and is measured only
# when asked by name, so that its misses and false alarms are not read by the way (read, it
# stops being unseen).
READ_SPLITS = (
    "dev",
    "holdout",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
)
KINDS = ("clean", "hard-clean", "flawed")
DOMAINS = ("Wikipedia", "GloBI", "bioRxiv", "Xeno-canto")
REFERENCE_MODELS = ("ref-a", "ref-b")  # the two reference models every item is asked of
JUDGE_MODEL = "judge"
SCRIPT_KEYS = ("models", "options_only", "judge", "blind")
JUDGE_VERDICTS = ("ok", "ambiguous", "wrong_gold", "not_self_contained", "unsupported")


@dataclass(frozen=True)
class Truth:
    """What one corpus item should and should not raise, and what is recorded about it."""

    id: str
    split: str
    domain: str
    kind: str
    raise_: frozenset[str]
    allow: frozenset[str] = frozenset()
    tempts: frozenset[str] = frozenset()
    note: str = ""
    script: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Truth:
        return cls(
            id=str(data["id"]),
            split=str(data["split"]),
            domain=str(data["domain"]),
            kind=str(data["kind"]),
            raise_=frozenset(data.get("raise", ())),
            allow=frozenset(data.get("allow", ())),
            tempts=frozenset(data.get("tempts", ())),
            note=str(data.get("note", "")),
            script=dict(data.get("script") or {}),
        )


def load_truth(path: Path = TRUTH) -> dict[str, Truth]:
    """Every line of the truth file, by item id (a repeated id is an error)."""
    truths: dict[str, Truth] = {}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            truth = Truth.from_json(json.loads(line))
            if truth.id in truths:
                raise ValueError(f"{path.name}:{number}: {truth.id} named twice")
            truths[truth.id] = truth
    return truths


def split_dir(split: str) -> Path:
    return CORPUS / split


def item_files(split: str) -> list[Path]:
    return sorted((split_dir(split) / "items").glob("*.jsonl"))


def corpus_items(split: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(item id, its question and options as written) of every item a split's item files hold:
    a flat item under its id, a Wikipedia generator output's questions under ``ID:N``, any other
    generator output (GloBI ``usable: "true"``, bioRxiv, Xeno-canto) under its id."""
    for path in item_files(split):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            data = json.loads(line)
            output = data.get("output")
            if output is None:
                yield str(data["id"]), data
            elif "questions" in output:
                for n, question in enumerate(output["questions"]):
                    yield f"{data['id']}:{n}", question
            elif str(output.get("usable", "true")).lower() != "false":
                yield str(data["id"]), output


def options_of(written: dict[str, Any]) -> list[str]:
    options = written.get("options") or []
    if isinstance(options, dict):
        return [str(options[k]) for k in sorted(options)]
    return [str(o) for o in options]


# -- the scripted models ---------------------------------------------------------------------

_QUESTION = re.compile(r"^Question: (.*?)\nOptions:", re.M | re.S)
_OPTION = re.compile(r"^([ABCD])\. (.*)$", re.M)
_KEYED = re.compile(r"^Keyed answer: ([ABCD])", re.M)


@dataclass(frozen=True)
class Asked:
    """An item as the project shows it to a model: its stem, options and gold option's text."""

    id: str
    question: str
    options: tuple[str, ...]
    gold: str | None


class CorpusServer(ScriptedServer):
    """The scripted OpenAI-compatible server, answering each corpus item as its truth says.

    Closed-book (the paper's prompt): each reference model answers the option its script names,
    else the gold. Options only (no question): the option its script names, else the first
    option in the order shown that is not the gold (a model that cannot tell). Judge: the
    scripted verdict and key. An item is told by its stem, or by its set of options when the
    prompt has no stem."""

    def __init__(self, items: list[Asked], truths: dict[str, Truth]) -> None:
        super().__init__({})
        self.truths = truths
        self.by_question: dict[tuple[str, frozenset[str]], Asked] = {}
        self.by_options: dict[frozenset[str], list[Asked]] = {}
        for item in items:
            options = frozenset(item.options)
            self.by_question[(item.question.strip(), options)] = item
            self.by_options.setdefault(options, []).append(item)

    def _find(self, prompt: str) -> tuple[list[Asked], list[str]]:
        """The items the prompt may be about (one when it has a stem) and the options shown."""
        shown = [m.group(2) for m in _OPTION.finditer(prompt)]
        question = _QUESTION.search(prompt)
        if question:
            item = self.by_question.get((question.group(1).strip(), frozenset(shown)))
            return ([item] if item else []), shown
        return self.by_options.get(frozenset(shown), []), shown

    def _script(self, item: Asked, key: str) -> Any:
        truth = self.truths.get(item.id)
        return truth.script.get(key) if truth else None

    def reply(self, model: str, prompt: str) -> str:
        found, shown = self._find(prompt)
        if "Keyed answer:" in prompt:
            return self._verdict(found[0] if len(found) == 1 else None, shown, prompt)
        if not shown or not found:
            return "I cannot tell."
        options_only = _QUESTION.search(prompt) is None
        if len(found) == 1:
            answers = self._script(found[0], "options_only" if options_only else "models") or {}
            wanted = answers.get(model) or (None if options_only else found[0].gold)
            if wanted in shown:
                return LETTERS[shown.index(wanted)]
        # no script: an option that is none of these items' gold (options shared by several
        # items, shown without a stem, could be any of them)
        golds = {item.gold for item in found}
        wrong = [i for i, text in enumerate(shown) if text not in golds]
        return LETTERS[wrong[0]] if wrong else "I cannot tell."

    def _verdict(self, item: Asked | None, shown: list[str], prompt: str) -> str:
        scripted = (self._script(item, "judge") if item else None) or {}
        keyed = _KEYED.search(prompt)
        key = keyed.group(1) if keyed else "A"
        if scripted.get("key") in shown:
            key = LETTERS[shown.index(scripted["key"])]
        verdict = {
            "verdict": scripted.get("verdict", "ok"),
            "key": key,
            "reason": scripted.get("reason", "The evidence supports the keyed option."),
        }
        return json.dumps(verdict)


# -- the check reference's table (docs/CHECKS.md, the README's until it moved there) -----------


def readme_severities(readme: Path = ROOT / "docs" / "CHECKS.md") -> dict[str, str]:
    """Each check id's severity as the check table of docs/CHECKS.md gives it."""
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"^## Checks\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    severities: dict[str, str] = {}
    for line in (match.group(1) if match else "").splitlines():
        cells = [c.strip().strip("`") for c in line.split("|")[1:-1]]
        if len(cells) >= 2 and cells[1] in ("blocking", "warning", "info"):
            severities[cells[0]] = cells[1]
    return severities
