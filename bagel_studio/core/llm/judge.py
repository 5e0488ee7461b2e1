"""A second opinion: a model reads an item with its evidence and returns a JSON verdict.

The verdict (``ok``, ``ambiguous``, ``wrong_gold``, ``not_self_contained``, ``unsupported``), the
option the model would key and its one-sentence reason are stored with the model and the time,
and shown as a suggestion: a verdict never decides anything.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.llm.client import LLMClient, Reply
from bagel_studio.core.llm.evaluate import Write, _direct
from bagel_studio.core.llm.evidence import judge_evidence
from bagel_studio.core.llm.fit import Evidence
from bagel_studio.core.llm.jobs import (
    CLI_ADVICE,
    TIMEOUTS_IN_A_ROW,
    Flight,
    StopAdvice,
    TimeoutStop,
    ask_all,
)
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.llm.replies import json_object
from bagel_studio.core.llm.templates import judge_prompt
from bagel_studio.core.model import Item
from bagel_studio.core.operations import llm as ops
from bagel_studio.core.store import Store

VERDICTS = ("ok", "ambiguous", "wrong_gold", "not_self_contained", "unsupported")
JUDGE_MAX_TOKENS = 300


@dataclass
class JudgeSummary:
    asked: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    disagree: list[str] = field(default_factory=list)  # item ids whose verdict is not ok
    errors: list[str] = field(default_factory=list)  # "item id: what went wrong", per failure
    stopped: str | None = None  # why the run stopped before asking every item
    shortened: dict[str, str] = field(default_factory=dict)  # item id -> how its evidence was cut
    flight: Flight = field(default_factory=Flight)  # what was in flight when the run stopped

    def to_json(self) -> dict[str, Any]:
        return {
            "asked": self.asked,
            "verdicts": dict(self.verdicts),
            "failed": self.failed,
            "disagree": self.disagree,
            "errors": self.errors,
            "stopped": self.stopped,
            "shortened": self.shortened,
        }


def render_for(store: Store, item: Item) -> tuple[Callable[[str], str], Evidence]:
    """The judge's prompt around an evidence text (shortened or not), and the evidence."""
    content = item.content
    gold = content.answer_letter or "none"
    evidence, around = judge_evidence(store, item)

    def render(text: str) -> str:
        return judge_prompt(content.question, content.options, gold, around(text))

    return render, evidence


def prompt_for(store: Store, item: Item) -> str:
    """The judge's prompt for ``item`` with its whole evidence (up to the judge's cap)."""
    render, evidence = render_for(store, item)
    return render(evidence.text)


def read_verdict(reply: Reply) -> tuple[str | None, int | None, str | None, str | None]:
    """(verdict, key index, reason, error) from a reply."""
    if reply.error is not None:
        return None, None, None, reply.error
    data = json_object(reply.text)
    if data is None:
        return None, None, None, "the reply holds no JSON object"
    verdict = str(data.get("verdict", "")).strip().lower()
    if verdict not in VERDICTS:
        return None, None, None, f"unknown verdict {verdict!r}"
    key = str(data.get("key", "")).strip().upper()[:1]
    reason = " ".join(str(data.get("reason", "")).split()) or None
    return verdict, LETTERS.index(key) if key in LETTERS else None, reason, None


def judge(
    store: Store,
    profile: Profile,
    items: Sequence[Item],
    *,
    client: LLMClient,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    abort: threading.Event | None = None,
    write: Write = _direct,
    stop_after_timeouts: int = TIMEOUTS_IN_A_ROW,
    advice: StopAdvice = CLI_ADVICE,
) -> JudgeSummary:
    """Ask for a verdict on each item and store each as it arrives; stop as ``evaluate`` does
    (a refusal every request would meet, timed-out items in a row)."""
    cancel = cancel or threading.Event()
    timeouts = TimeoutStop(profile, stop_after_timeouts, advice)
    by_id = {item.id: item for item in items}
    jobs = [(item.id, *render_for(store, item)) for item in items]
    summary = JudgeSummary()
    replies = ask_all(client, jobs, concurrency=profile.concurrency, max_tokens=JUDGE_MAX_TOKENS,
                      cancel=cancel, abort=abort, flight=summary.flight)  # fmt: skip
    for item_id, reply, sent in replies:
        item = by_id[item_id]
        why = timeouts.note(reply)
        if why is not None and summary.stopped is None:
            summary.stopped = why
            cancel.set()  # what is in flight arrives; nothing more is asked
        verdict, key, reason, error = read_verdict(reply)
        row = {
            "item_id": item_id,
            "profile": profile.label,
            "model": profile.model,
            "content_hash": item.content.content_hash(),
            "verdict": verdict,
            "key_index": key,
            "reason": reason,
            "raw_reply": reply.text,
            "reply_note": reply.note,
            "error": error,
            "asked_at": store.clock(),
            **sent.to_json(),
        }
        write(functools.partial(ops.record_verdict, store, row))
        summary.asked += 1
        if sent.note:
            summary.shortened[item_id] = sent.note
        if verdict is None:
            summary.failed += 1
            summary.errors.append(f"{item_id}: {error}")
        else:
            summary.verdicts[verdict] += 1
            if verdict != "ok" or (key is not None and key != item.content.answer_index):
                summary.disagree.append(item_id)
        if progress is not None:
            progress(summary.asked, len(jobs))
    return summary


def disagrees(verdict: dict[str, Any], gold: int | None) -> bool:
    """True when a stored verdict is not ``ok`` or keys another option than the gold."""
    key = verdict.get("key_index")
    return verdict.get("verdict") != "ok" or (key is not None and key != gold)
