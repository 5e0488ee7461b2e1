"""Content words for the audit: the checks' light stemming (``checks.words``), computed once per
distinct word, since an audit reads every stem and option of the project."""

from __future__ import annotations

from bagel_studio.core.checks.words import STOP_WORDS, WORD_RE, stem

_STEMS: dict[str, str] = {}  # lower-case word -> its stem ("" for a stop word)


def content_words(text: str) -> frozenset[str]:
    """The stems of the content words of ``text`` (as ``checks.words.content_stems``, as a
    set). Words are deduplicated and looked up in C; only words never seen before are stemmed."""
    words = set(WORD_RE.findall(text.lower()))
    stems = _STEMS
    for word in words.difference(stems):
        stems[word] = "" if word in STOP_WORDS else stem(word)
    found = set(map(stems.__getitem__, words))
    found.discard("")
    return frozenset(found)
