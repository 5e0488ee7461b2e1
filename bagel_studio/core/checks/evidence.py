"""Checks of an item against the evidence it was generated from: a gold answer the evidence does
not support, and a distractor it does.

Evidence is the item's Wikipedia or bioRxiv text, the GloBI summary the generator was shown, and
the generator's own supporting-evidence spans. A GloBI item is judged first by the record it
links (``globi_evidence``): a gold taxon that is one of the record's, or a gold interaction
compatible with the record's, is supported whatever the summary words it as; a summary about
another record than the linked one is not the item's evidence. Its taxon and interaction
distractors are left to ``also-documented``, which reads the records with the taxa's roles.
With no evidence text the checks stay silent: absence of evidence is not a defect of the item.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING

from bagel_studio.core.checks.globi_evidence import about_record, option_types, record_verdict
from bagel_studio.core.checks.quantities import quantities, same_quantities, unit_words
from bagel_studio.core.checks.support import (
    GOLD_MIN,
    SUPPORTED,
    OptionSupport,
    SentenceIndex,
    option_support,
    sentence_index,
)
from bagel_studio.core.checks.words import STOP_WORDS, WORD_RE, content_stems, stem
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, ItemContent, Severity
from bagel_studio.core.taxonomy import parse_name

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext
    from bagel_studio.core.checks.globi_item import GlobiItem

UNSUPPORTED_GOLD = "unsupported-gold"
SUPPORTED_DISTRACTOR = "supported-distractor"

DESCRIPTIONS = {
    UNSUPPORTED_GOLD: "No sentence of the item's evidence (Wikipedia/bioRxiv text, GloBI summary, "
    "generator spans) holds most of the gold answer's content words and numbers, the sentence "
    "most about the stem gives a rival of the gold instead (another value of the same quantity, "
    "another species of its genus), or the GloBI record the item links says otherwise; the "
    "words found and missing are named.",
    SUPPORTED_DISTRACTOR: "A sentence of the item's evidence that is about the stem holds all the "
    "content words and numbers of a distractor, not negated, so the distractor may also be "
    "right; the words matched are named.",
}

LONG_TEXT = 2000  # characters; in longer texts a supporting sentence must share 2 stem words
MANY_SENTENCES = 3  # in a text of this many sentences, half of the stem's distinctive words
SNIPPET = 90
_NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "without", "cannot", "none"})
# Words that carry a distractor's meaning but no content word shows ("Only in winter", "Both
# sexes are the same size", "Dogs but not wolves"): a sentence holding its other words does not
# say it, so such a distractor is not judged by the words.
# Words an option may add that say nothing of its own ("as well", "also", "various").
_FILLER = frozenset(
    stem(w) for w in ("well", "also", "even", "other", "others", "another", "various", "several")
)
# Words of a stem that single one answer out ("the most important sense"): stop words, which
# the sentences are searched for as well, since a sentence saying only "important" does not
# say "most important".
_SUPERLATIVES = frozenset({"most", "least", "main", "mainly", "primary", "primarily", "chief"})
# "How long", "how many": the question's form, not what it is about.
_HOW = re.compile(r"\bhow\s+(?:long|many|much|far|old|big|large|often|high|deep|fast|soon)\b", re.I)
_QUALIFIERS = frozenset(
    {"only", "exclusively", "solely", "never", "always", "all", "none", "both", "neither", "nor"}
    | {"same", "equal", "equally", "not", "no", "except", "entirely", "completely", "any"}
)
NEGATION_REACH = 8  # words before a distractor's first word in which a negation denies it
_CLAUSE_TOKENS = r"[^\W_]+(?:['’-][^\W_]+)*|[,;:()]"  # compiled when first needed
_CLAUSE_ENDS = frozenset({",", ";", ":", "(", ")", "but", "while", "whereas", "although"})


def evidence_texts(
    ctx: CheckContext, item: Item, globi: GlobiItem | None = None
) -> list[tuple[str, str]]:
    """(label, text) of every evidence text of ``item`` that is loaded (a GloBI summary about
    another record than the one ``globi`` links left out)."""
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
        link = globi.gold_link if globi is not None else None
        if link is None or about_record(summary, link):
            found.append(("the GloBI summary", summary))
    spans = [s for s in item.supporting_evidence if s.strip()]
    if spans:
        found.append(("the generator's supporting spans", "\n".join(spans)))
    return found


def evidence_flags(ctx: CheckContext, item: Item, globi: GlobiItem | None = None) -> list[Flag]:
    """The flags of ``item`` against the evidence it was generated from: ``unsupported-gold``
    when no sentence holds most of the gold's words and numbers (or the GloBI record the item
    links, read by ``globi``, says otherwise), ``supported-distractor`` when a sentence about
    the stem holds a distractor's. None without evidence or a valid gold: there is nothing to
    weigh."""
    content = item.content
    gold = content.answer_index
    if gold is None or not 0 <= gold < len(content.options):
        return []
    texts = evidence_texts(ctx, item, globi)
    verdict = record_verdict(globi) if globi is not None else None
    if not texts and verdict is None:
        return []  # most items: nothing to judge them by
    flags: list[Flag] = []
    asked = _HOW.sub(" ", content.question)
    question = frozenset(content_stems(asked)) - {
        s for o in content.options for s in content_stems(o)
    }
    question |= _SUPERLATIVES.intersection(w.lower() for w in WORD_RE.findall(asked))
    gold_about: dict[str, int] = {}  # evidence label -> how much its gold sentence is about
    if verdict is not None:
        if not verdict.supported:
            flags.append(_contradicted(item, verdict.says))
    elif texts:
        support, label, text = _best(texts, gold, content.question, content.options, as_gold=True)
        held = _gold_about(sentence_index(text), support, question)
        gold_about[label] = held
        gold_words = option_words(content.options[gold], content.question, content.options)
        bare = not gold_words
        if bare and not quantities(content.options[gold]):
            pass  # the gold adds nothing to the stem's words: nothing to look for
        elif support.score < GOLD_MIN:
            flags.append(_unsupported(item, (support, label, text), texts))
        elif bare and held == 0 and len(sentence_index(text).spans) >= MANY_SENTENCES:
            flags.append(_unrelated(item, (support, label, text), texts))
    if not texts:
        return flags
    judged_by_records = option_types(globi) if globi is not None else set()
    written = {stem(w): w for w in WORD_RE.findall(content.question)}
    written |= {w.lower(): w for w in WORD_RE.findall(content.question) if w.lower() in question}
    gold_stems = set(content_stems(content.options[gold]))
    stem_words = set(content_stems(content.question))
    # a stem asking the usual value ("How long does it usually last?") asks the first of two
    typical = _TYPICAL.search(content.question) is not None
    supported = []
    for index, option in enumerate(content.options):
        if index == gold or not option.strip() or index in judged_by_records:
            continue
        if not _QUALIFIERS.isdisjoint(w.lower() for w in WORD_RE.findall(option)):
            continue
        if set(content_stems(option)) == gold_stems:
            continue  # the gold's words in another order: the words cannot tell them apart
        if set(content_stems(option)) <= stem_words:
            continue  # the stem's own words (its taxon offered as its prey): any sentence
            # about the stem holds them, whatever it says of them
        support, label, text = _best(texts, index, content.question, content.options)
        if support.score < SUPPORTED:
            continue
        sentences = sentence_index(text)
        distinctive = _distinctive(sentences, question)
        needed = min(2 if len(text) > LONG_TEXT else 1, len(distinctive))
        if len(sentences.spans) >= MANY_SENTENCES:  # half the stem's words, at least
            needed = max(needed, (len(distinctive) + 1) // 2)
            if quantities(option):  # a number is held by many sentences: all but one of them
                needed = max(needed, len(distinctive) - 1)
        # no less about the stem than the gold's own sentence in that text (the gold's own
        # sentence, giving a second value of the same thing, is as much about it)
        own = needed
        needed = max(needed, gold_about.get(label, 0))
        for number in support.sentences:
            about = [written[s] for s in distinctive if sentences.holds(number, s)]
            if len(about) < own or _denied(sentences, number, support):
                continue
            if not _modifier_beside_noun(sentences, number, option, content):
                continue  # "the red (outside Australia)" does not say "Red kangaroo"
            if quantities(option) and _holds_gold(sentences, number, gold, content):
                if typical or not _said_of_the_stem(sentences, number, option, stem_words):
                    continue  # one of the values the sentence lists, the gold's among them
            elif len(about) < needed:
                continue
            supported.append((index, label, text, number, support, about))
            break
    if supported:
        flags.append(_supported(item, supported))
        if not any(f.check == UNSUPPORTED_GOLD for f in flags):
            contradicted = _rival_stated(item, supported, question)
            if contradicted is not None:
                flags.append(contradicted)
    return flags


def _rival_stated(
    item: Item,
    supported: list[tuple[int, str, str, int, OptionSupport, list[str]]],
    question: frozenset[str],
) -> Flag | None:
    """A wrong key the evidence contradicts: a distractor of the gold's own kind (another value
    of the same quantity, another species of the same genus, the same words with one other)
    is held by a sentence more about the stem than any sentence holding the gold, and that
    sentence does not hold the gold. The text then says the distractor where the gold should
    be."""
    content = item.content
    gold = content.answer_index
    assert gold is not None
    for index, label, text, number, support, about in supported:
        if not _rivals(content.options[gold], content.options[index]):
            continue
        sentences = sentence_index(text)
        if _holds_gold(sentences, number, gold, content):
            continue
        if _gold_stated_about(sentences, content, question) >= len(about):
            continue
        letter = content.answer_letter or "?"
        rival = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        return Flag(
            UNSUPPORTED_GOLD,
            Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
            f"Gold answer {letter} {content.answer_text!r} is contradicted by {label}: the "
            f"sentence most about the stem says {_quoted(support.found)}, distractor {rival} "
            f'{content.options[index].strip()!r}: "{_snippet(text, number)}"',
            {
                "options": [letter],
                "score": 0.0,
                "evidence": label,
                "rival": rival,
                "found": list(support.found),
                "missing": [],
            },
        )
    return None


def _gold_stated_about(
    sentences: SentenceIndex, content: ItemContent, question: frozenset[str]
) -> int:
    """How many of the stem's distinctive words the sentences holding the whole gold (as a
    distractor is held: its words as written, in one sentence) hold at most; 0 when none holds
    it."""
    options = content.options
    gold = options[content.answer_index or 0]
    words = option_words(gold, content.question, options)
    support = option_support(sentences, words, quantities(gold), strict=True)
    if support.score < SUPPORTED:
        return 0
    distinctive = _distinctive(sentences, question)
    return max(
        (sum(1 for s in distinctive if sentences.holds(n, s)) for n in support.sentences),
        default=0,
    )


def _rivals(gold: str, other: str) -> bool:
    """Whether two options are answers of one kind that cannot both be right: the same words
    with other values of one quantity ("By about two years" / "By about four years"), two
    species of one genus ("Strychnos ignatii" / "Strychnos nux-vomica"), or the same content
    words but one each."""
    mine, theirs = quantities(gold), quantities(other)
    if mine or theirs:
        if len(mine) != len(theirs) or same_quantities(mine, theirs):
            return False
        if any(
            q.dimension and r.dimension and q.dimension != r.dimension
            for q, r in zip(mine, theirs, strict=True)
        ):
            return False
        return set(content_stems(gold)) - unit_words(gold) == set(
            content_stems(other)
        ) - unit_words(other)
    first, second = parse_name(gold.strip()), parse_name(other.strip())
    if first is not None and second is not None and first.epithets and second.epithets:
        return first.genus == second.genus and first.key != second.key
    a, b = set(content_stems(gold)), set(content_stems(other))
    return len(a) >= 2 and len(a - b) == 1 and len(b - a) == 1


def _distinctive(sentences: SentenceIndex, question: frozenset[str]) -> frozenset[str]:
    """The stem's words that tell a sentence about it from the rest: those the text does not
    use everywhere ("giraffe" in the Giraffe article), or all of them when it uses every one
    ("How long is the giraffe's neck?" in an article saying "neck" in a sentence of ten)."""
    return question - sentences.common() or question


def _gold_about(sentences: SentenceIndex, support: OptionSupport, question: frozenset[str]) -> int:
    """How many of the stem's distinctive words the gold's best sentence (with the next one)
    holds: the most over its best sentences."""
    distinctive = _distinctive(sentences, question)
    best = 0
    for number in support.sentences:
        window = (number, number + 1)
        held = sum(1 for s in distinctive if any(sentences.holds(n, s) for n in window))
        best = max(best, held)
    return best


def option_words(option: str, question: str, options: tuple[str, ...]) -> list[tuple[str, str]]:
    """(stem, word as written) of the content words that tell ``option`` from the others: not
    those of the stem, nor those every other option shares, nor the words of its quantities
    (matched as quantities); all its words when nothing would be left."""
    written: dict[str, str] = {}
    for word in WORD_RE.findall(option):
        if word.lower() not in STOP_WORDS:
            written.setdefault(stem(word), word)
    shared = set(content_stems(question))
    others = [set(content_stems(o)) for o in options if o is not option]
    if others:
        shared |= set.intersection(*others) & set(written)
    if quantities(option):
        shared |= unit_words(option)
    kept = [(s, w) for s, w in written.items() if s not in shared]
    if kept and all(s in _FILLER for s, _ in kept):
        return []  # "Other bee species as well": nothing the stem does not already say
    if kept or quantities(option):
        return kept
    return list(written.items())


def _best(
    texts: list[tuple[str, str]],
    index: int,
    question: str,
    options: tuple[str, ...],
    *,
    as_gold: bool = False,
) -> tuple[OptionSupport, str, str]:
    """The best support of option ``index`` in any of ``texts``. The gold is looked for in
    other forms of its words too, over two sentences in a row; a distractor needs its words as
    written, in one sentence."""
    option = options[index]
    words = option_words(option, question, options)
    found = quantities(option)
    best: tuple[OptionSupport, str, str] | None = None
    for label, text in texts:
        support = option_support(
            sentence_index(text),
            words,
            found,
            forms=as_gold,
            window=2 if as_gold else 1,
            strict=not as_gold,
        )
        if best is None or support.score > best[0].score:
            best = (support, label, text)
    assert best is not None  # texts is never empty here
    return best


def _holds_gold(sentences: SentenceIndex, number: int, gold: int, content: ItemContent) -> bool:
    """Whether sentence ``number`` also holds the gold's quantities and words: a sentence of
    several values ("about 40% invertebrates, 33% plant material and 27% vertebrates") gives
    each to its own thing, and the gold's is the one the stem asks."""
    options = content.options
    words = option_words(options[gold], content.question, options)
    support = option_support(sentences, words, quantities(options[gold]))
    return support.score >= SUPPORTED and number in support.sentences


@cache
def _clause_tokens() -> re.Pattern[str]:
    return re.compile(_CLAUSE_TOKENS)


def _denied(sentences: SentenceIndex, number: int, support: OptionSupport) -> bool:
    """Whether the sentence denies the option: a negation ("not", "no", "never") in the same
    clause, a few words before the first of the option's words it holds ("Koalas do not eat
    insects", "we found no evidence for any vigilance or confusion effect")."""
    if not support.found:
        return False
    start, end = sentences.spans[number]
    tokens = [t.lower() for t in _clause_tokens().findall(sentences.text, start, end)]
    first = stem(support.found[0])
    for at, token in enumerate(tokens):
        if stem(token) != first:
            continue
        for before in reversed(tokens[max(0, at - NEGATION_REACH) : at]):
            if before in _CLAUSE_ENDS:
                break
            if before in _NEGATIONS or before.endswith(("n't", "n’t")):
                return True
        return False
    return False


_TYPICAL = re.compile(
    r"\b(?:usual(?:ly)?|typical(?:ly)?|normal(?:ly)?|average|mean|median|most often|generally|"
    r"commonly)\b",
    re.IGNORECASE,
)
SAID_OF_REACH = 5  # words before a value in which the stem's own word says what it is of


def _said_of_the_stem(
    sentences: SentenceIndex, number: int, option: str, stem_words: set[str]
) -> bool:
    """Whether sentence ``number`` gives the distractor's value as a second value of what the
    stem asks ("usually takes 12-14 days, but can take as long as 20 days" for "How long does
    incubation take?"): one of the stem's words a few words before the value, and no other
    thing named right after it (as "40% insects, 33% seeds" or "316,000 in the wild, 4,000 in
    zoos" gives each value its own)."""
    figures = [w for w in WORD_RE.findall(option) if w[:1].isdigit()]
    if not figures:
        return False
    start, end = sentences.spans[number]
    said = WORD_RE.findall(sentences.text, start, end)
    units = unit_words(option)
    for at, word in enumerate(said):
        if word != figures[-1]:
            continue
        before = {stem(w) for w in said[max(0, at - SAID_OF_REACH) : at]}
        after = [w for w in said[at + 1 : at + 3] if stem(w) not in units]
        named = any(w.lower() not in STOP_WORDS and stem(w) not in stem_words for w in after)
        if before & stem_words and not named:
            return True
    return False


def _modifier_beside_noun(
    sentences: SentenceIndex, number: int, option: str, content: ItemContent
) -> bool:
    """Whether sentence ``number`` says an option told from the others by one modifier alone
    ("Red kangaroo" beside "Eastern grey kangaroo": "red") with the words it modifies: a lone
    "red" of something else does not say "Red kangaroo". True for any other option (one of
    other words, or a clause: "It nests in the tree")."""
    words = option_words(option, content.question, content.options)
    written = WORD_RE.findall(option)
    if len(words) != 1 or len(written) < 2 or stem(written[-1]) == words[0][0]:
        return True
    if any(w.lower() in STOP_WORDS for w in written):
        return True  # a clause ("It nests in the tree"), not a name of modifier and noun
    wanted = [stem(w) for w in written]
    at = wanted.index(words[0][0]) if words[0][0] in wanted else -1
    if at < 0:
        return True
    wanted = wanted[at:]
    start, end = sentences.spans[number]
    said = [stem(w) for w in WORD_RE.findall(sentences.text, start, end)]
    return any(said[i : i + len(wanted)] == wanted for i in range(len(said)))


def _snippet(text: str, sentence: int) -> str:
    start, end = sentence_index(text).spans[sentence]
    snippet = " ".join(text[start:end].split())
    return snippet if len(snippet) <= SNIPPET else snippet[: SNIPPET - 1].rstrip() + "…"


def _quoted(words: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"'{w}'" for w in words)


def _unsupported(
    item: Item, best: tuple[OptionSupport, str, str], texts: list[tuple[str, str]]
) -> Flag:
    support, label, _ = best
    letter = item.content.answer_letter or "?"
    labels = " or ".join(dict.fromkeys(t[0] for t in texts))
    if support.found:
        held = f"holds {_quoted(support.found)} but not {_quoted(support.missing)}"
    else:
        held = f"holds none of {_quoted(support.missing)}"
    return Flag(
        UNSUPPORTED_GOLD,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        f"Gold answer {letter} {item.content.answer_text!r} is not supported by {labels}: "
        f"its best sentence {held}",
        {
            "options": [letter],
            "score": round(support.score, 3),
            "evidence": label,
            "found": list(support.found),
            "missing": list(support.missing),
        },
    )


def _unrelated(
    item: Item, best: tuple[OptionSupport, str, str], texts: list[tuple[str, str]]
) -> Flag:
    """A gold of numbers alone that the evidence holds only in sentences about something else
    (a bare "30" for the lion's teeth in a sentence about its weight)."""
    support, label, text = best
    letter = item.content.answer_letter or "?"
    labels = " or ".join(dict.fromkeys(t[0] for t in texts))
    where = _snippet(text, support.sentences[0]) if support.sentences else ""
    return Flag(
        UNSUPPORTED_GOLD,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        f"Gold answer {letter} {item.content.answer_text!r} is not supported by {labels}: "
        f"{_quoted(support.found)} occurs only in sentences not about the stem "
        f'("{where}")',
        {
            "options": [letter],
            "score": round(support.score, 3),
            "evidence": label,
            "found": list(support.found),
            "missing": [],
        },
    )


def _contradicted(item: Item, says: str) -> Flag:
    letter = item.content.answer_letter or "?"
    return Flag(
        UNSUPPORTED_GOLD,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        f"Gold answer {letter} {item.content.answer_text!r} is not what the linked GloBI record "
        f"says: {says}",
        {"options": [letter], "score": 0.0, "evidence": "the linked GloBI record"},
    )


def _supported(
    item: Item, supported: list[tuple[int, str, str, int, OptionSupport, list[str]]]
) -> Flag:
    parts = []
    for index, label, text, sentence, support, about in supported:
        letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        option = item.content.options[index].strip()
        beside = f" beside the stem's {_quoted(sorted(about))}" if about else ""
        parts.append(
            f"distractor {letter} {option!r} by {label} ({_quoted(support.found)}{beside}): "
            f'"{_snippet(text, sentence)}"'
        )
    message = "Supported " + "; ".join(parts)
    spans = {
        (LETTERS[i] if i < len(LETTERS) else str(i + 1)): list(sentence_index(t).spans[n])
        for i, _, t, n, _, _ in supported
    }
    return Flag(
        SUPPORTED_DISTRACTOR,
        Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
        message,
        {
            "options": list(spans),
            "spans": spans,
            "evidence": [label for _, label, _, _, _, _ in supported],
            "matched": {
                (LETTERS[i] if i < len(LETTERS) else str(i + 1)): list(s.found)
                for i, _, _, _, s, _ in supported
            },
        },
    )
