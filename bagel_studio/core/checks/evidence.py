"""Checks of an item against the text it was generated from: a gold answer the evidence does
not support, and a distractor it does.

Evidence is the item's Wikipedia or bioRxiv text, the GloBI summary the generator was shown, and
the generator's own supporting-evidence spans. With no evidence text the checks stay silent:
absence of evidence is not a defect of the item.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from bagel_studio.core.checks.support import (
    GOLD_MIN,
    SUPPORTED,
    Support,
    best_support,
    distinguishing_stems,
    relevance,
    sentence_index,
)
from bagel_studio.core.checks.words import content_stems
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

UNSUPPORTED_GOLD = "unsupported-gold"
SUPPORTED_DISTRACTOR = "supported-distractor"

DESCRIPTIONS = {
    UNSUPPORTED_GOLD: "No sentence of the item's evidence (Wikipedia/bioRxiv text, GloBI summary, "
    "generator spans) holds most of the gold answer's content words.",
    SUPPORTED_DISTRACTOR: "A sentence of the item's evidence that is about the stem holds all the "
    "content words of a distractor, so the distractor may also be right.",
}

LONG_TEXT = 2000  # characters; in longer texts a supporting sentence must share 2 stem words
SNIPPET = 90


def evidence_texts(ctx: CheckContext, item: Item) -> list[tuple[str, str]]:
    """(label, text) of every evidence text of ``item`` that is loaded."""
    found: list[tuple[str, str]] = []
    source = item.source
    keys = [item.text_key] if item.text_key else []
    for field, kind in (("title", "title"), ("doi", "doi"), ("scientific_name", "sci")):
        value = source.get(field)
        if isinstance(value, str) and value.strip():
            keys.append(f"{kind}:{value.strip()}")
    for field in ("extract_file", "text_file"):
        value = source.get(field)
        if isinstance(value, str) and value.strip():
            keys.append(f"file:{PurePath(value.strip()).name}")
    for key in keys:
        stored = ctx.text(key)
        if stored and stored.get("text"):
            label = stored.get("title") or stored.get("source_file") or key
            found.append((f"the text {label!s}", str(stored["text"])))
            break
    inline = source.get("text") or source.get("abstract")
    if not found and isinstance(inline, str) and inline.strip():
        found.append(("the source text", inline))
    summary = source.get("summary")
    if isinstance(summary, str) and summary.strip():
        found.append(("the GloBI summary", summary))
    spans = [s for s in item.supporting_evidence if s.strip()]
    if spans:
        found.append(("the generator's supporting spans", "\n".join(spans)))
    return found


def evidence_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    """The flags of ``item`` against the texts it was generated from: ``unsupported-gold`` when
    no sentence holds most of the gold's content words, ``supported-distractor`` when a
    sentence about the stem holds a distractor's. None without evidence or a valid gold, where
    there is nothing to weigh."""
    content = item.content
    gold = content.answer_index
    texts = evidence_texts(ctx, item)
    if not texts or gold is None or not 0 <= gold < len(content.options):
        return []
    flags: list[Flag] = []
    gold_best = _best(texts, content.options[gold], content.question, content.options)
    if gold_best[0].score < GOLD_MIN:
        flags.append(_unsupported(item, gold_best, texts))
    question = frozenset(content_stems(content.question)) - {
        s for o in content.options for s in content_stems(o)
    }
    supported = []
    for index, option in enumerate(content.options):
        if index == gold or not option.strip():
            continue
        support, label, text = _best(texts, option, content.question, content.options)
        if support.score < SUPPORTED:
            continue
        index_of = sentence_index(text)
        needed = min(2 if len(text) > LONG_TEXT else 1, len(question))
        relevant = [n for n in support.sentences if relevance(index_of, n, question) >= needed]
        if relevant:
            supported.append((index, label, text, relevant[0]))
    if supported:
        flags.append(_supported(item, supported))
    return flags


def _best(
    texts: list[tuple[str, str]], option: str, question: str, options: tuple[str, ...]
) -> tuple[Support, str, str]:
    stems = distinguishing_stems(option, question, options)
    best = (Support(0.0, ()), texts[0][0], texts[0][1])
    for label, text in texts:
        support = best_support(sentence_index(text), stems)
        if support.score > best[0].score:
            best = (support, label, text)
    return best


def _snippet(text: str, sentence: int) -> str:
    start, end = sentence_index(text).spans[sentence]
    snippet = " ".join(text[start:end].split())
    return snippet if len(snippet) <= SNIPPET else snippet[: SNIPPET - 1].rstrip() + "…"


def _unsupported(item: Item, best: tuple[Support, str, str], texts: list[tuple[str, str]]) -> Flag:
    support, label, _ = best
    letter = item.content.answer_letter or "?"
    labels = " or ".join(dict.fromkeys(t[0] for t in texts))
    share = f"{round(support.score * 100)}%"
    return Flag(
        UNSUPPORTED_GOLD,
        Severity.WARNING,
        f"Gold answer {letter} {item.content.answer_text!r} is not supported by {labels} "
        f"(best sentence holds {share} of its content words)",
        {"options": [letter], "score": round(support.score, 3), "evidence": label},
    )


def _supported(item: Item, supported: list[tuple[int, str, str, int]]) -> Flag:
    parts = []
    for index, label, text, sentence in supported:
        letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        option = item.content.options[index].strip()
        parts.append(f'distractor {letter} {option!r} by {label}: "{_snippet(text, sentence)}"')
    message = "Supported " + "; ".join(parts)
    spans = {
        (LETTERS[i] if i < len(LETTERS) else str(i + 1)): list(sentence_index(t).spans[n])
        for i, _, t, n in supported
    }
    return Flag(
        SUPPORTED_DISTRACTOR,
        Severity.WARNING,
        message,
        {
            "options": list(spans),
            "spans": spans,
            "evidence": [label for _, label, _, _ in supported],
        },
    )
