"""Beyond one machine: the evaluation as an OpenAI Batch API input file, and its results read back.

``batch-export`` writes one request per question not answered yet (``custom_id``, ``method``,
``url``, ``body``), which the OpenAI Batch API or ``vllm run-batch`` runs; ``batch-import`` joins
the output lines on ``custom_id`` and stores each answer exactly as ``evaluate`` would have (a
line with an error is stored as a failed answer with its error, so a later run asks it again).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bagel_studio.core.llm.client import Reply
from bagel_studio.core.llm.evaluate import Question, Shown, answer_row, pending, questions
from bagel_studio.core.llm.profiles import CHAT, Profile
from bagel_studio.core.operations import llm as ops
from bagel_studio.core.store import Store
from bagel_studio.core.store.llm import AnswerRow

SEPARATOR = "::"
COMMIT_EVERY = 500
# Who runs the file: OpenAI's Batch API (chat and plain completions, among others) or vLLM's
# ``run-batch`` (chat, embeddings, score and rerank: no plain completions). Neither takes
# llama.cpp's ``grammar``.
OPENAI, VLLM = "openai", "vllm"
TARGETS = {OPENAI: "OpenAI's Batch API", VLLM: "vllm run-batch"}


class BatchError(ValueError):
    """A results file that cannot be read at all."""


def custom_id(question: Question) -> str:
    """The Batch API ``custom_id`` of a question: item, content hash, option order and seed, so
    that a result line is joined to exactly the question that was asked."""
    order = "".join(str(i) for i in question.order)
    seed = "" if question.shown_seed is None else str(question.shown_seed)
    return SEPARATOR.join([question.item_id, question.content_hash, order, seed])


def parse_custom_id(value: str) -> tuple[str, str, str, int | None]:
    """(item id, content hash, order key, seed); raises ValueError for a foreign id."""
    item_id, content_hash, order, seed = value.rsplit(SEPARATOR, 3)
    if sorted(order) != ["0", "1", "2", "3"]:
        raise ValueError(value)
    return item_id, content_hash, json.dumps([int(c) for c in order]), int(seed) if seed else None


def target_refusal(profile: Profile, target: str) -> str | None:
    """Why the requests of ``profile`` cannot be written for ``target``, in one line, or None.
    A request the runner would change or reject would store answers to something other than
    what the profile measures."""
    runner = TARGETS[target]
    if profile.grammar:
        return (
            f"{runner} takes no llama.cpp grammar, and profile {profile.label!r} asks with it: its "
            "answers would not be what the profile measures; write the file for a profile "
            "without the grammar (--label NEW, without --grammar)"
        )
    if target == VLLM and profile.api_style != CHAT:
        return (
            f"{runner} takes no /v1/completions requests (only chat, embeddings, score and "
            f"rerank), and profile {profile.label!r} asks plain completions: write the file for "
            "OpenAI's Batch API (--target openai), or for a chat profile (--api-style chat "
            "under another --label)"
        )
    return None


def request_line(profile: Profile, question: Question) -> dict[str, Any]:
    """One line of a Batch API input file: the request ``evaluate`` would send for ``question``
    with ``profile``'s settings (chat or completions)."""
    body: dict[str, Any] = {
        "model": profile.model,
        "max_tokens": profile.max_tokens,
        "temperature": profile.temperature,
        "seed": profile.seed,
    }
    if profile.api_style == CHAT:
        url = "/v1/chat/completions"
        body["messages"] = [{"role": "user", "content": question.prompt()}]
    else:
        url = "/v1/completions"
        body["prompt"] = question.prompt()
    return {"custom_id": custom_id(question), "method": "POST", "url": url, "body": body}


def write_batch(store: Store, profile: Profile, wanted: list[Question], out: IO[str]) -> int:
    """Write a request per question ``profile`` has not answered yet; return how many (the
    caller has checked the profile against the target, ``target_refusal``)."""
    todo = pending(store, profile, wanted)
    for question in todo:
        out.write(json.dumps(request_line(profile, question), ensure_ascii=False) + "\n")
    return len(todo)


@dataclass
class BatchImport:
    """What reading a results file did: its lines, the answers stored, and what was not."""

    lines: int = 0
    stored: int = 0  # answers written: new, or replacing a failed one
    answered_before: int = 0  # answers the project holds already (not stored again)
    parses: Counter[str] = field(default_factory=Counter)
    unmatched: list[str] = field(default_factory=list)  # custom ids of no current question
    bad_lines: list[str] = field(default_factory=list)  # "line N: reason"
    repeated: list[tuple[int, int]] = field(default_factory=list)  # (line, first line of its id)

    def to_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "stored": self.stored,
            "answered_before": self.answered_before,
            "parses": dict(self.parses),
            "unmatched": self.unmatched,
            "bad_lines": self.bad_lines,
            "repeated": [{"line": line, "first": first} for line, first in self.repeated],
        }


def _body_reply(line: dict[str, Any]) -> Reply:
    """A Reply from one output line (OpenAI's ``response.body`` or a bare response object)."""
    error = line.get("error")
    response = line.get("response") or {}
    if error:
        message = error.get("message") if isinstance(error, dict) else str(error)
        return Reply(None, error=f"batch error: {message}")
    status = response.get("status_code", 200)
    body = response.get("body", response) if isinstance(response, dict) else {}
    if status != 200:
        detail = body.get("error", {}) if isinstance(body, dict) else {}
        message = detail.get("message") if isinstance(detail, dict) else detail
        return Reply(None, error=f"batch error: HTTP {status} {message or ''}".strip())
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices:
        return Reply(None, error="batch error: the response has no choices")
    choice = choices[0]
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else choice.get("text")
    usage = body.get("usage") or {}
    return Reply(
        text or "",
        None,
        None,
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
        1,
    )


def _lines(source: Iterable[str]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    for number, raw in enumerate(source, start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield number, f"not JSON ({exc.msg})"
            continue
        if not isinstance(value, dict) or not isinstance(value.get("custom_id"), str):
            yield number, "no custom_id"
            continue
        yield number, value


def import_results(store: Store, profile: Profile, path: Path, shown: Shown) -> BatchImport:
    """Store the answers of a Batch API output file for ``profile`` (``shown``: how a release
    shows its items, for the requests written with a seed)."""
    result = BatchImport()
    known: dict[tuple[str, str, str], Question] = {}
    seeds_loaded: set[int | None] = set()
    batch = []
    try:
        handle = path.open(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise BatchError(f"{path}: {exc.strerror or exc}") from exc
    asked: list[str] = []
    first_lines: dict[str, int] = {}  # custom id -> the line it came on first
    with handle:
        for number, line in _lines(handle):
            result.lines += 1
            if isinstance(line, str):
                result.bad_lines.append(f"line {number}: {line}")
                continue
            first = first_lines.setdefault(line["custom_id"], number)
            if first != number:  # one request, two results: the first is kept
                result.repeated.append((number, first))
                continue
            try:
                item_id, content_hash, order, seed = parse_custom_id(line["custom_id"])
            except ValueError:
                result.unmatched.append(line["custom_id"])
                continue
            if seed not in seeds_loaded:
                known.update(
                    {
                        (q.item_id, q.content_hash, q.order_key): q
                        for q in questions(store, seed=seed, shown=shown)
                    }
                )
                seeds_loaded.add(seed)
            question = known.get((item_id, content_hash, order))
            if question is None:
                result.unmatched.append(line["custom_id"])
                continue
            row = answer_row(profile, question, _body_reply(line), store.clock(), origin="batch")
            batch.append(row)
            asked.append(item_id)
            result.parses[row.parse] += 1
            if len(batch) >= COMMIT_EVERY:
                _record(store, batch, result)
                batch = []
    _record(store, batch, result)
    ops.refresh_model_flags(store, asked)
    return result


def _record(store: Store, batch: list[AnswerRow], result: BatchImport) -> None:
    """Store a batch of answers, counting those written and those the project held already."""
    written = ops.record_answers(store, batch).result
    result.stored += written
    result.answered_before += len(batch) - written
