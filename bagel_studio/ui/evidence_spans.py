"""Where in an evidence text the gold answer is supported (no Qt here: plain string work).

The generator's ``supporting_evidence`` spans are preferred; without them, the sentences that carry
most of the gold answer's words. ``bagel_studio.core.checks.support.support_spans`` is used when it
is present, so the desk highlights what the support check looked at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from bagel_studio.core.model import Item

Span = tuple[int, int]

STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "its",
        "it",
        "this",
        "that",
        "as",
        "into",
        "than",
        "then",
        "their",
        "they",
        "them",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "how",
        "not",
        "no",
    ]
)
MAX_SENTENCES = 6
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_WORD = re.compile(r"[\w'-]+")


def content_words(text: str) -> set[str]:
    return {
        w.casefold() for w in _WORD.findall(text) if len(w) > 2 and w.casefold() not in STOPWORDS
    }


def sentences(text: str) -> list[Span]:
    """Sentence-ish spans (split on .!? and line ends), stripped of surrounding space."""
    result = []
    for match in _SENTENCE.finditer(text):
        start, end = match.span()
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            result.append((start, end))
    return result


def find_phrase(text: str, phrase: str) -> Span | None:
    """``phrase`` in ``text`` ignoring case and differences in whitespace."""
    words = phrase.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return match.span() if match else None


def _best_sentences(text: str, words: set[str], threshold: float) -> list[Span]:
    if not words:
        return []
    scored = []
    for span in sentences(text):
        found = content_words(text[span[0] : span[1]]) & words
        score = len(found) / len(words)
        if found and score >= threshold:
            scored.append((score, span))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return sorted(span for _score, span in scored[:MAX_SENTENCES])


def _core_support_spans() -> Callable[[str, str], Any] | None:
    try:
        from bagel_studio.core.checks.support import support_spans
    except ImportError:
        return None
    return support_spans


def _as_spans(value: Any, length: int) -> list[Span]:
    """Accept what the core returns if it is a list of (start, end) pairs inside the text."""
    spans: list[Span] = []
    if not isinstance(value, list | tuple):
        return spans
    for entry in value:
        pair = getattr(entry, "start", None), getattr(entry, "end", None)
        if pair[0] is None and isinstance(entry, Sequence) and len(entry) >= 2:
            pair = entry[0], entry[1]
        start, end = pair
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= length:
            spans.append((start, end))
    return spans


def support_ranges(text: str, item: Item) -> list[Span]:
    """The spans of ``text`` to highlight for ``item``, in text order, not overlapping."""
    if not text:
        return []
    phrases = [p for p in item.supporting_evidence if p.strip()]
    gold = item.content.answer_text or ""
    spans: list[Span] = []
    for phrase in phrases:
        exact = find_phrase(text, phrase)
        spans.extend([exact] if exact else _sentences_for(text, phrase, 0.6))
    if not spans and gold:
        spans.extend(_sentences_for(text, gold, 0.5))
    return _merge(spans)


def _sentences_for(text: str, phrase: str, threshold: float) -> list[Span]:
    """The core's support sentences when that module is installed, else word overlap here."""
    core = _core_support_spans()
    if core is not None:
        try:
            found = _as_spans(core(text, phrase), len(text))
        except Exception:
            found = []
        if found:
            return found
    return _best_sentences(text, content_words(phrase), threshold)


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(set(spans)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
