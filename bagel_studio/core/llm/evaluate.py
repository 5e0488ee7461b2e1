"""Closed-book evaluation: the paper's prompt for every item, answers committed as they arrive.

Requests run on a thread pool (``profile.concurrency`` at a time); the calling thread is the only
one that touches the project: it commits the answers that have arrived in one transaction each
time it wakes (so none waits behind a slow one), reports progress and honours a cancel. An answer
already stored for the same profile settings, prompt, item content and option order is never asked
again, which is what makes a run resumable after a crash or a cancel.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.llm.client import LLMClient, Reply, RetryPolicy
from bagel_studio.core.llm.jobs import (
    CLI_ADVICE,
    TIMEOUTS_IN_A_ROW,
    Flight,
    StopAdvice,
    TimeoutStop,
    pooled,
)
from bagel_studio.core.llm.metrics import invalid_note, order_name
from bagel_studio.core.llm.parse import FAILED, INVALID, STRICT, parse_letter
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.llm.templates import (
    evaluation_prompt,
    evaluation_prompt_hash,
    options_only_prompt,
    options_only_prompt_hash,
)
from bagel_studio.core.model import ItemContent
from bagel_studio.core.operations import llm as ops
from bagel_studio.core.store import Store
from bagel_studio.core.store import llm as sql
from bagel_studio.core.store.llm import AnswerRow

Progress = Callable[[int, int], None]
Write = Callable[[Callable[[], Any]], Any]  # runs a write where the caller's writes run
IDENTITY = (0, 1, 2, 3)
# The items of the release with a seed as that release shows them: item id -> (released content,
# option order). The export computes it (``export.shown_order``) and the caller hands it over:
# the release's report holds the models' tables, so the models do not import the export.
Shown = Callable[[Store, int], Mapping[str, tuple[ItemContent, tuple[int, ...]]]]


def _direct(call: Callable[[], Any]) -> Any:
    return call()


@dataclass(frozen=True)
class Question:
    """One item as a model will see it."""

    item_id: str
    content: ItemContent
    order: tuple[int, ...]  # shown option i is content.options[order[i]]
    shown_seed: int | None = None
    options_only: bool = False  # the prompt without its question (the audit's baseline)

    @property
    def order_key(self) -> str:
        return json.dumps(list(self.order))

    @property
    def content_hash(self) -> str:
        return self.content.content_hash()

    def prompt(self) -> str:
        shown = [self.content.options[i] for i in self.order]
        if self.options_only:
            return options_only_prompt(shown)
        return evaluation_prompt(self.content.question, shown)

    @property
    def prompt_hash(self) -> str:
        return options_only_prompt_hash() if self.options_only else evaluation_prompt_hash()


@dataclass
class EvaluationSummary:
    profile: str
    total: int = 0
    already: int = 0  # answered before this run: not asked again
    asked: int = 0
    parses: Counter[str] = field(default_factory=Counter)
    letters: Counter[str] = field(default_factory=Counter)  # emitted letters (position bias)
    correct: int = 0  # the letter read (strictly or leniently) points to the gold
    strict_correct: int = 0  # the reply is that one letter and nothing else
    no_gold: int = 0  # replies to items without a valid gold: left out of the accuracy
    seed: int | None = None  # the release whose order the items were shown in (None: project)
    cut: int = 0  # replies cut at the size the client reads (``client.REPLY_LIMIT``)
    cancelled: bool = False
    flight: Flight = field(default_factory=Flight)  # what was in flight when the run stopped
    errors: list[str] = field(default_factory=list)  # the first few, for the message
    # Why the run stopped before asking everything: a refusal every request would meet, or
    # items in a row that got no reply within the timeout.
    stopped: str | None = None

    @property
    def failed(self) -> int:
        return self.parses[FAILED]

    @property
    def invalid(self) -> int:
        return self.parses[INVALID]

    def to_json(self) -> dict[str, Any]:
        answered = self.asked - self.failed
        graded = answered - self.no_gold
        return {
            "profile": self.profile,
            "order": order_name(self.seed),
            "items": self.total,
            "already_answered": self.already,
            "asked": self.asked,
            "answered": answered,
            "strict": self.parses["strict"],
            "lenient": self.parses["lenient"],
            "invalid": self.invalid,
            "failed": self.failed,
            "correct": self.correct,
            "strict_correct": self.strict_correct,
            "no_gold": self.no_gold,
            # lm-evaluation-harness's two metrics: strict-match and flexible-extract
            "strict_accuracy": round(self.strict_correct / graded, 4) if graded else None,
            "accuracy": round(self.correct / graded, 4) if graded else None,
            "letters": {x: self.letters[x] for x in LETTERS},
            "cut": self.cut,
            "note": invalid_note(answered, self.invalid),
            "cancelled": self.cancelled,
            "stopped": self.stopped,
            "errors": self.errors,
        }


def questions(
    store: Store,
    item_ids: Iterable[str] | None = None,
    seed: int | None = None,
    *,
    options_only: bool = False,
    shown: Shown | None = None,
) -> list[Question]:
    """Every item (or those of ``item_ids``) with four options, in the project's order; or,
    with ``seed``, only the items the release with that seed holds, as it shows them (released
    content, shuffled options: ``shown``, which a seed needs). An item the release leaves out
    has no order of that release to be asked in, so it is left out (the caller names it), never
    asked in another order under the same run. ``options_only``: ask without the question."""
    items = store.items.get_many(None if item_ids is None else list(item_ids))
    released: Mapping[str, tuple[ItemContent, tuple[int, ...]]] = {}
    if seed is not None:
        if shown is None:
            raise ValueError("questions as a release shows them need the release's order (shown)")
        released = shown(store, seed)
    result = []
    for item in items:
        if len(item.content.options) != len(LETTERS):
            continue  # the prompt has four option lines: such an item is blocked anyway
        if seed is None:
            result.append(Question(item.id, item.content, IDENTITY, None, options_only))
        elif item.id in released:
            content, order = released[item.id]
            result.append(Question(item.id, content, order, seed, options_only))
    return result


def pending(store: Store, profile: Profile, wanted: list[Question]) -> list[Question]:
    """The questions not yet answered by ``profile`` in the same run (settings, prompt and
    order shown: the same release's, or the project's) and the same content and option order."""
    done: dict[tuple[str, int | None], set[tuple[str, str, str]]] = {}
    for run in {(q.prompt_hash, q.shown_seed) for q in wanted}:
        done[run] = store.llm.answered_keys(profile.label, profile.settings_hash(), *run)
    return [
        q
        for q in wanted
        if (q.item_id, q.content_hash, q.order_key) not in done[(q.prompt_hash, q.shown_seed)]
    ]


def answer_row(
    profile: Profile, question: Question, reply: Reply, at: str, origin: str = "evaluate"
) -> AnswerRow:
    """What is stored for one reply: the order shown, the raw reply, the parse, the letter, the
    option it points to and whether that is the gold."""
    if reply.error is not None:
        parse, letter, index, correct = FAILED, None, None, None
    else:
        parsed = parse_letter(reply.text)
        parse, letter = parsed.parse, parsed.letter
        index = question.order[LETTERS.index(letter)] if letter else None
        gold = question.content.answer_index if question.content.answer_text else None
        # an item without a valid gold cannot be answered right or wrong: NULL, left out of
        # every accuracy (and said)
        correct = None if gold is None else index is not None and index == gold
    return AnswerRow(
        profile=profile.label,
        settings_hash=profile.settings_hash(),
        prompt_hash=question.prompt_hash,
        item_id=question.item_id,
        content_hash=question.content_hash,
        option_order=question.order_key,
        shown_seed=question.shown_seed,
        model=profile.model,
        raw_reply=reply.text,
        parse=parse,
        letter=letter,
        option_index=index,
        correct=correct,
        error=reply.error,
        latency_ms=reply.latency_ms,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        attempts=reply.attempts,
        origin=sql.OPTIONS_ONLY if question.options_only else origin,
        answered_at=at,
        reply_note=reply.note,
    )


def evaluate(
    store: Store,
    profile: Profile,
    wanted: list[Question],
    *,
    client: LLMClient | None = None,
    policy: RetryPolicy | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    abort: threading.Event | None = None,
    write: Write = _direct,
    stop_after_timeouts: int = TIMEOUTS_IN_A_ROW,
    advice: StopAdvice = CLI_ADVICE,
) -> EvaluationSummary:
    """Ask ``profile`` every question not answered yet; commit each answer as it arrives.

    ``write`` runs each commit (the desk passes its single database-writer thread). The run
    stops (``summary.stopped``) at a refusal every request would meet, or after
    ``stop_after_timeouts`` items in a row got no reply within the timeout (0: never). After
    ``cancel`` nothing more is sent and what is in flight is stored as it arrives; after
    ``abort`` it is no longer waited for (``summary.flight`` says how many each)."""
    todo = pending(store, profile, wanted)
    seeds = {q.shown_seed for q in wanted}
    summary = EvaluationSummary(profile.label, total=len(wanted), already=len(wanted) - len(todo),
                                seed=seeds.pop() if len(seeds) == 1 else None)  # fmt: skip
    if not todo:
        return summary
    own_client = client is None
    client = client or LLMClient(profile, policy)
    cancel = cancel or threading.Event()
    abort = abort or threading.Event()
    timeouts = TimeoutStop(profile, stop_after_timeouts, advice)
    try:
        replies = _replies(client, todo, profile.concurrency, cancel, abort, summary.flight)
        for batch in replies:
            for _, reply in batch:
                why = timeouts.note(reply)
                if why is not None and summary.stopped is None:
                    summary.stopped = why
                    cancel.set()  # what is in flight arrives; nothing more is asked
            rows = [answer_row(profile, q, reply, store.clock()) for q, reply in batch]
            write(functools.partial(ops.record_answers, store, rows))
            for row in rows:
                summary.asked += 1
                summary.parses[row.parse] += 1
                summary.correct += bool(row.correct)
                summary.strict_correct += bool(row.correct) and row.parse == STRICT
                summary.no_gold += row.parse != FAILED and row.correct is None
                summary.cut += row.reply_note is not None
                if row.letter:
                    summary.letters[row.letter] += 1
                if row.error and len(summary.errors) < 5:
                    summary.errors.append(f"{row.item_id}: {row.error}")
            if progress is not None:
                progress(summary.already + summary.asked, summary.total)
    finally:
        if own_client:
            client.close()
        write(lambda: ops.refresh_model_flags(store, [q.item_id for q in todo]))
    summary.cancelled = cancel.is_set() and summary.stopped is None
    return summary


def _replies(
    client: LLMClient,
    todo: list[Question],
    concurrency: int,
    cancel: threading.Event,
    abort: threading.Event,
    flight: Flight,
) -> Iterator[list[tuple[Question, Reply]]]:
    """Batches of (question, reply) as they complete, at most ``concurrency`` requests in flight
    (plus as many queued), stopped as ``jobs.pooled`` says."""

    def ask(question: Question) -> Callable[[], Reply]:
        return lambda: client.ask(question.prompt(), cancel=cancel, abort=abort)

    yield from pooled(((q, ask(q)) for q in todo), concurrency=concurrency, ahead=concurrency,
                      cancel=cancel, abort=abort, stops=lambda reply: reply.fatal,
                      flight=flight)  # fmt: skip
