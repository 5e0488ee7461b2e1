"""Wikipedia extracts and bioRxiv texts (FORMATS.md 5), with the paper's length rules.

An extract under 1,000 characters was excluded from generation, so it is refused here too (as a
reject the curator can see); one over 180,000 characters is cut at a paragraph or sentence boundary
and marked ``truncated``, as the generator saw it. Paragraphs are kept one blank line apart
(``paragraphed``), so that the desk shows them apart.
"""

from __future__ import annotations

import os
import re
from typing import Any

from bagel_studio.core.importers.textio import Readable, TextLines

MIN_CHARS = 1_000  # a Wikipedia extract's (the paper's rule); a bioRxiv text has no minimum
MAX_CHARS = 180_000
BIORXIV_DOI = re.compile(r"\b10\.1101/[0-9.]+\d")
DOI = re.compile(r"^\s*(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)\s*$", re.I)
_BINOMIAL = re.compile(r"\b([A-Z][a-z]+ [a-z]{2,}(?: [a-z]{2,})?)\b")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s")


class TextTooShort(ValueError):
    """A text the paper's rules exclude; the message is the reject reason."""


def truncate(text: str, limit: int = MAX_CHARS) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters at the last paragraph break, else the last
    sentence end, in the second half of the limit (a hard cut only when neither exists)."""
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    paragraph = head.rfind("\n\n")
    if paragraph >= limit // 2:
        return head[:paragraph].rstrip(), True
    ends = [m.end() for m in _SENTENCE_END.finditer(head, limit // 2)]
    if ends:
        return head[: ends[-1]].rstrip(), True
    return head, True


_LINE_ENDS_SENTENCE = re.compile(r"[.!?:;][\"')\]]?$")
WRAP_WIDTH = 120  # a text whose lines are all this short may be hard-wrapped


def paragraphed(text: str) -> str:
    """``text`` with its paragraphs one blank line apart.

    A MediaWiki extract (and most texts in JSON) has one paragraph or heading per line, apart by
    a single line break: shown as it is, each paragraph runs straight on from the one before.
    Every line break of such a text becomes a paragraph break (blank lines and trailing spaces
    folded). A hard-wrapped text, whose lines are short and mostly end mid-sentence, already
    marks its paragraphs with blank lines and is left as it is. Applied twice, it changes
    nothing more."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    filled = [line for line in lines if line.strip()]
    if len(filled) < 2 or _hard_wrapped(filled):
        return text
    return "\n\n".join(filled)


def _hard_wrapped(lines: list[str]) -> bool:
    if max(len(line) for line in lines) > WRAP_WIDTH:
        return False
    mid_sentence = sum(1 for line in lines if not _LINE_ENDS_SENTENCE.search(line))
    return mid_sentence >= 0.6 * len(lines)


def scientific_name(text: str) -> str | None:
    """The first binomial in parentheses in the first sentence ("The koala (Phascolarctos
    cinereus) is ..."; "The raccoon ( or US: , Procyon lotor)")."""
    first = text.lstrip()[:600]
    end = _SENTENCE_END.search(first)
    sentence = first[: end.end()] if end else first
    for group in re.findall(r"\(([^()]*)\)", sentence):
        match = _BINOMIAL.search(group)
        if match:
            return match.group(1)
    return None


def make_text(
    key: str,
    kind: str,
    text: str,
    *,
    title: Any = None,
    doi: Any = None,
    scientific: Any = None,
    source_file: str | None = None,
    continues: bool = False,
) -> dict[str, Any]:
    """A text row (TEXT_COLUMNS), truncated by the paper's rule (``continues``: ``text`` is the
    head of a longer one, see ``read_head``)."""
    body, truncated = truncate(text.replace("\r\n", "\n").replace("\r", "\n").strip())
    truncated = truncated or continues
    body = paragraphed(body)  # after the cut, which is the generator's (on the text as written)
    return {
        "key": key,
        "kind": kind,
        "title": str(title).strip() if title else None,
        "scientific_name": str(scientific).strip() if scientific else scientific_name(body),
        "doi": str(doi).strip() if doi else None,
        "text": body,
        "truncated": int(truncated),
        "source_file": os.path.basename(source_file) if source_file else None,
    }


def _check_length(text: str, kind: str = "wikipedia") -> None:
    length = len(text.strip())
    if kind == "biorxiv":  # the paper's minimum is for Wikipedia extracts
        if not length:
            raise TextTooShort("the abstract is empty")
        return
    if length < MIN_CHARS:
        raise TextTooShort(
            f"text has {length:,} characters; extracts under {MIN_CHARS:,} are excluded"
        )


HEAD_MARGIN = 1_000  # characters kept beyond MAX_CHARS, for the cut's own look-around


def read_head(handle: Readable, line_limit: int) -> tuple[str, bool]:
    """A text file read as a stream, a line at a time: its text from the first non-blank line
    up to ``MAX_CHARS`` (and a margin), all the paper's rules ever keep, and whether more text
    follows; memory holds that head and a line, whatever the file's size (a line over
    ``line_limit`` bytes is held as its head)."""
    cap = MAX_CHARS + HEAD_MARGIN
    lines = TextLines(handle, max(line_limit, 4 * cap), 4 * cap)
    kept: list[str] = []
    size = 0
    more = False
    for line in lines:
        if size > cap:
            more = more or bool(line.strip())
        elif kept or line.strip():
            kept.append(line)
            size += len(line)
    return "".join(kept), more


def text_from_plain(text: str, file_name: str, *, continues: bool = False) -> dict[str, Any]:
    """A plain-text extract: a Wikipedia article named after its file, or a bioRxiv text when
    its head carries a bioRxiv DOI (``continues``: ``text`` is the head of a longer file)."""
    title = os.path.splitext(file_name)[0].replace("_", " ").strip()
    doi_match = BIORXIV_DOI.search(text[:2000])
    _check_length(text, "biorxiv" if doi_match else "wikipedia")
    if doi_match:
        doi = doi_match.group(0)
        return make_text(
            f"biorxiv:{doi}",
            "biorxiv",
            text,
            title=title,
            doi=doi,
            source_file=file_name,
            continues=continues,
        )
    return make_text(
        f"wikipedia:{title}",
        "wikipedia",
        text,
        title=title,
        source_file=file_name,
        continues=continues,
    )


def is_text_document(data: dict[str, Any]) -> bool:
    """A JSON object that is a text (title plus text/abstract/extract), not an item."""
    if any(k in data for k in ("question", "output", "questions", "options")):
        return False
    return any(isinstance(data.get(k), str) for k in ("text", "abstract", "extract"))


def is_text_map(data: Any) -> bool:
    """A JSON object mapping keys (DOIs, titles) to texts, each a title and its
    text/abstract/extract: how bioRxiv abstracts are often shared, ``{DOI: {"title",
    "abstract"}}``."""
    return (
        isinstance(data, dict)
        and bool(data)
        and not is_text_document(data)
        and all(isinstance(v, dict) and is_text_document(v) for v in data.values())
    )


def texts_from_map(
    data: dict[str, Any], file_name: str
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The texts of a text map (``is_text_map``), each under its key: a key that is a DOI is
    the text's DOI (a bioRxiv paper), another key its title when it has none. Also the texts
    refused, as (key, reason)."""
    found: list[dict[str, Any]] = []
    refused: list[tuple[str, str]] = []
    for key, value in data.items():
        entry = dict(value)
        doi = DOI.match(str(key))
        if doi and not entry.get("doi"):
            entry["doi"] = doi.group(1)
        elif not doi and not entry.get("title"):
            entry["title"] = str(key)
        try:
            found.append(text_from_json(entry, file_name))
        except TextTooShort as exc:
            refused.append((str(key), str(exc)))
    return found, refused


def text_from_json(data: dict[str, Any], file_name: str) -> dict[str, Any]:
    """A JSON text: bioRxiv when it has a DOI or an abstract, else a Wikipedia article."""
    body = next(data[k] for k in ("text", "abstract", "extract") if isinstance(data.get(k), str))
    doi = data.get("doi")
    _check_length(body, "biorxiv" if doi or "abstract" in data else "wikipedia")
    title = data.get("title") or os.path.splitext(file_name)[0].replace("_", " ")
    if doi or "abstract" in data:
        key = f"biorxiv:{doi or title}"
        return make_text(
            key,
            "biorxiv",
            body,
            title=title,
            doi=doi,
            scientific=data.get("scientific_name"),
            source_file=file_name,
        )
    return make_text(
        f"wikipedia:{title}",
        "wikipedia",
        body,
        title=title,
        scientific=data.get("scientific_name"),
        source_file=file_name,
    )
