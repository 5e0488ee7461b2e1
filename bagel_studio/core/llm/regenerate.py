"""Regeneration: a rejected item's evidence through the paper's generation prompt for its domain.

The reply is read with the importer's own reader of generator outputs (the prompt's JSON schema,
``usable: "false"`` as a generator rejection), the new item gets its structural flags and then
every check, and it is stored unreviewed with a link to the item it replaces
(``llm_regenerations.regenerated_from``). It keeps the old item's evidence links.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.llm.client import LLMClient, Messages, Reply
from bagel_studio.core.llm.evaluate import Write, _direct
from bagel_studio.core.llm.evidence import EVIDENCE_FIELDS, focus, generation_values
from bagel_studio.core.llm.fit import Evidence
from bagel_studio.core.llm.jobs import (
    CLI_ADVICE,
    TIMEOUTS_IN_A_ROW,
    Flight,
    StopAdvice,
    TimeoutStop,
    ask_all,
)
from bagel_studio.core.llm.profiles import CHAT, Profile
from bagel_studio.core.llm.replies import json_object
from bagel_studio.core.llm.templates import generation_messages
from bagel_studio.core.model import Item
from bagel_studio.core.operations import llm as ops
from bagel_studio.core.store import Store
from bagel_studio.core.store.imports import GeneratorRejection
from bagel_studio.core.store.rows import NewItem

GENERATION_MAX_TOKENS = 1500
CREATED, REJECTED, INVALID, FAILED, NO_EVIDENCE = (
    "created",
    "generator-rejection",
    "invalid",
    "failed",
    "no-evidence",
)


@dataclass
class RegenerationSummary:
    outcomes: dict[str, str] = field(default_factory=dict)  # old item id -> outcome
    created: dict[str, str] = field(default_factory=dict)  # old item id -> new item id
    reasons: dict[str, str] = field(default_factory=dict)
    stopped: str | None = None  # why the run stopped before asking every item
    shortened: dict[str, str] = field(default_factory=dict)  # item id -> how its evidence was cut
    flight: Flight = field(default_factory=Flight)  # what was in flight when the run stopped

    def to_json(self) -> dict[str, Any]:
        return {
            "outcomes": self.outcomes,
            "created": self.created,
            "reasons": self.reasons,
            "stopped": self.stopped,
            "shortened": self.shortened,
        }


def _as_prompt(messages: Messages, profile: Profile) -> str | Messages:
    """Chat messages as they are, or one text with the paper's role labels for a base model."""
    if profile.api_style == CHAT:
        return messages
    text = "\n\n".join(f"{m['role'].capitalize()}: {m['content']}" for m in messages)
    return text + "\n\nAssistant:"


def _render(
    item: Item, values: dict[str, str], profile: Profile
) -> tuple[Callable[[str], str | Messages], Evidence]:
    """The domain's generation prompt around an evidence text (shortened or not): the paper's
    prompt verbatim, only its evidence placeholder may hold less than the whole evidence."""
    name = EVIDENCE_FIELDS.get(item.domain)

    def render(text: str) -> str | Messages:
        filled = values if name is None else {**values, name: text}
        return _as_prompt(generation_messages(item.domain, filled), profile)

    return render, Evidence(values.get(name, "") if name else "", focus(item))


def new_item_id(store: Store, item: Item) -> str:
    """The id of the next regeneration of ``item``: its id with ``~regenN``, N one more than its
    regenerations so far, so that every attempt is kept beside the others."""
    count = len([r for r in store.llm.regenerations(item.id) if r["regenerated_from"] == item.id])
    return f"{item.id}~regen{count + 1}"


def read_generation(
    item: Item, new_id: str, reply: Reply
) -> tuple[str, NewItem | None, GeneratorRejection | None, str | None]:
    """(outcome, new item, rejection, reason) from the generator's reply."""
    from bagel_studio.core.importers.items import ItemBatch  # lazy: the importers are large

    if reply.error is not None:
        return FAILED, None, None, reply.error
    output = json_object(reply.text)
    if output is None:
        return INVALID, None, None, "the reply holds no JSON object"
    batch = ItemBatch("regenerate")
    record = {"id": new_id, "domain": item.domain, "source": item.source, "output": output}
    batch.add_record(record, 1, json.dumps(record, ensure_ascii=False))
    if batch.generator_rejections:
        rejection = batch.generator_rejections[0]
        return REJECTED, None, rejection, rejection.reason
    if batch.rejects and not batch.items:
        return INVALID, None, None, batch.rejects[0].reason
    candidates = list(batch.items.values())
    if not candidates:
        return INVALID, None, None, "the reply holds no item"
    same = [c for c in candidates if c.content.dimension == item.content.dimension]
    chosen = (same or candidates)[0]
    chosen = dataclasses.replace(
        chosen,
        id=new_id,
        globi_ref=item.globi_ref,
        recording_id=item.recording_id,
        text_key=item.text_key,
        source_file="regenerate",
        source_line=None,
    )
    return CREATED, chosen, None, None


def regenerate(
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
) -> RegenerationSummary:
    """Regenerate each item from its evidence; store each result as it arrives; stop as
    ``evaluate`` does (a refusal every request would meet, timed-out items in a row)."""
    from bagel_studio.core.checks.structural import structural_flags

    cancel = cancel or threading.Event()
    timeouts = TimeoutStop(profile, stop_after_timeouts, advice)
    summary = RegenerationSummary()
    jobs: list[tuple[str, Callable[[str], str | Messages], Evidence]] = []
    by_id = {item.id: item for item in items}
    for item in items:
        values = generation_values(store, item)
        if values is None:
            summary.outcomes[item.id] = NO_EVIDENCE
            summary.reasons[item.id] = "the item's evidence is not loaded in this project"
            continue
        jobs.append((item.id, *_render(item, values, profile)))
    replies = ask_all(client, jobs, concurrency=profile.concurrency,
                      max_tokens=GENERATION_MAX_TOKENS, cancel=cancel, abort=abort,
                      flight=summary.flight)  # fmt: skip
    for done, (item_id, reply, sent) in enumerate(replies, start=1):
        item = by_id[item_id]
        why = timeouts.note(reply)
        if why is not None and summary.stopped is None:
            summary.stopped = why
            cancel.set()  # what is in flight arrives; nothing more is asked
        new_id = new_item_id(store, item)
        outcome, new_item, rejection, reason = read_generation(item, new_id, reply)
        if rejection is not None:
            rejection = dataclasses.replace(rejection, key=new_id, file="regenerate", line=0)
        flags = structural_flags(new_item.domain, new_item.content) if new_item else []
        record = {
            "item_id": new_item.id if new_item else None,
            "regenerated_from": item.id,
            "profile": profile.label,
            "model": profile.model,
            "outcome": outcome,
            "reason": reason,
            "raw_reply": reply.text,
            "reply_note": reply.note,
            "created_at": store.clock(),
            **sent.to_json(),
        }
        write(functools.partial(ops.record_regeneration, store, record, new_item, flags, rejection))
        summary.outcomes[item_id] = outcome
        if sent.note:
            summary.shortened[item_id] = sent.note
        if new_item is not None:
            summary.created[item_id] = new_item.id
        if reason:
            summary.reasons[item_id] = reason
        if progress is not None:
            progress(done, len(jobs))
    return summary
