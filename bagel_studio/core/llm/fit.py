"""Fitting a judge's or a generator's request into the model's context window.

The prompts are sent verbatim; only their evidence (the article, the paper, the record) may be
shortened, and what is sent of it is recorded with the reply (``Sent``). The context comes from,
in this order: the profile's ``context_tokens`` (``--context-tokens N``), llama.cpp's ``/props``
(``default_generation_settings.n_ctx``), vLLM's ``/models`` listing (``max_model_len``), and, as a
last resort, the error a request met: a context-length error is answered by one more request
with the evidence cut to fit, and the context it names is kept for the rest of the run.

Tokens are counted by the server when it can (llama.cpp's ``/tokenize``, llama-cpp-python's
``/extras/tokenize/count``), else estimated conservatively as one per 3 bytes (English runs about
4 bytes a token), plus a few for each chat message's template.

What is kept of a shortened text: its first paragraph (what the text is about: the species, the
paper), then the paragraphs (long ones in pieces of sentences) that share the most content words
with the item's stem and options, then the others in their order, as many as fit; they are sent
in the text's order, one a line, ``[…]`` standing for each gap.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from bagel_studio.core.checks.support import split_sentences
from bagel_studio.core.checks.words import content_stems
from bagel_studio.core.llm.client import LLMClient, Messages, Reply

GAP = "[…]"
BYTES_PER_TOKEN = 3  # a conservative estimate without the model's tokenizer
MESSAGE_TOKENS = 8  # a chat template's tokens around each message
PROMPT_TOKENS = 16  # and around the whole conversation
REPLY_SHARE = 4  # the reply keeps its max tokens, or a quarter of the context if that is less
MIN_EVIDENCE_CHARS = 200  # below this, shortening cannot help: the prompt alone is too long
ATTEMPTS = 4  # counts of a shortened prompt (each shorter) before it is sent as it is

_PARAGRAPHS = re.compile(r"[ \t]*\n\s*")  # a MediaWiki extract: one paragraph a line
# What servers say when a prompt does not fit (OpenAI, vLLM, llama.cpp, llama-cpp-python, Ollama).
_CONTEXT_ERROR = re.compile(
    r"context_length_exceeded|maximum context length|context window|context length|"
    r"available context size|exceed_context_size|context size|prompt is too long|"
    r"too many tokens|input is too long",
    re.IGNORECASE,
)
_CONTEXT_SIZE = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"context window of (\d+)", re.IGNORECASE),
    re.compile(r"context length of (\d+)", re.IGNORECASE),
    re.compile(r"['\"]n_ctx['\"]\s*:\s*(\d+)"),
    re.compile(r"max_model_len\D{0,5}(\d+)"),
)
_REQUESTED = (
    re.compile(r"Requested tokens \((\d+)\)"),
    re.compile(r"requested (\d+) tokens", re.IGNORECASE),
    re.compile(r"resulted in (\d+) tokens", re.IGNORECASE),
    re.compile(r"['\"]n_prompt_tokens['\"]\s*:\s*(\d+)"),
)


@dataclass(frozen=True)
class Evidence:
    """The part of a prompt that may be shortened, and what the item asks (kept first)."""

    text: str
    focus: str
    cap: int | None = None  # characters at most, whatever the context (the judge's cap)
    cap_reason: str = ""


@dataclass(frozen=True)
class Sent:
    """What was sent of the evidence: its characters, of how many, and, when shortened, why."""

    chars: int
    total: int
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"evidence_chars": self.chars, "evidence_total_chars": self.total,
                "evidence_note": self.note}  # fmt: skip


def is_context_error(reply: Reply) -> bool:
    """Whether a failed reply is the server refusing the request as longer than the model's
    context; such a request is cut to fit and sent once more."""
    text = f"{reply.error or ''} {reply.error_body or ''}"
    return reply.error is not None and bool(_CONTEXT_ERROR.search(text))


def _number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def context_from_error(error: str) -> tuple[int | None, int | None]:
    """(the model's context, the tokens the request asked for) as a context error names them."""
    return _number(_CONTEXT_SIZE, error), _number(_REQUESTED, error)


# -- shortening ------------------------------------------------------------------------------


def _units(text: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) of each paragraph of ``text``; a paragraph over ``limit`` characters in
    pieces of whole sentences (a sentence over it, alone)."""
    units: list[tuple[int, int]] = []
    start = 0
    bounds = [(m.start(), m.end()) for m in _PARAGRAPHS.finditer(text)] + [(len(text), len(text))]
    for end, after in bounds:
        if text[start:end].strip():
            if end - start <= limit:
                units.append((start, end))
            else:
                piece = None
                for s, e in split_sentences(text[start:end]):
                    s, e = s + start, e + start
                    if piece is not None and e - piece[0] <= limit:
                        piece = (piece[0], e)
                    else:
                        if piece is not None:
                            units.append(piece)
                        piece = (s, e)
                if piece is not None:
                    units.append(piece)
        start = after
    return units


def shorten(text: str, focus: str, max_chars: int) -> str:
    """``text`` in at most ``max_chars`` characters: its first paragraph, then the parts about
    ``focus`` (most shared content words first), then the rest in order, as many as fit, sent
    in the text's order with ``[…]`` for each gap."""
    if len(text) <= max_chars:
        return text
    gap = f"\n{GAP}\n"
    units = _units(text, max(80, max_chars // 4))
    if not units:
        return text[:max_chars]
    stems = [set(content_stems(text[start:end])) for start, end in units]
    wanted = set(content_stems(focus))
    # a word most parts hold (the species' name) tells nothing about which part to keep
    telling = {w for w in wanted if sum(w in held for held in stems) <= len(units) // 2}
    scores = [len((telling or wanted) & held) for held in stems]
    about = sorted((i for i in range(1, len(units)) if scores[i]), key=lambda i: (-scores[i], i))
    # then the rest in order, but no heading or other line too short to say anything alone
    rest = [i for i in range(1, len(units)) if not scores[i] and units[i][1] - units[i][0] > 60]
    order = [0, *about, *rest]
    chosen: set[int] = set()
    used = len(gap)  # a gap at the end, when the text goes on
    for i in order:
        start, end = units[i]
        if i == 0 and end - start > max_chars // 3:  # a long first paragraph: its beginning
            continue
        cost = end - start + len(gap)
        if used + cost <= max_chars:
            chosen.add(i)
            used += cost
    if not chosen:  # not even one part fits: the beginning of the best one, at a word
        best = units[order[1] if len(order) > 1 else 0]
        cut = text[best[0] : best[0] + max_chars - len(gap)]
        return cut.rsplit(None, 1)[0] + gap.rstrip() if " " in cut else cut
    parts: list[str] = []
    previous = -1
    for i in sorted(chosen):
        if i != previous + 1:
            parts.append(GAP)
        parts.append(text[units[i][0] : units[i][1]].strip())
        previous = i
    if previous != len(units) - 1:
        parts.append(GAP)
    return "\n".join(parts)


# -- the model's context -----------------------------------------------------------------------


class Context:
    """The model's context window (learnt once per run, thread-safe) and a token counter."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.tokens: int | None = None
        self.source = ""
        self._counter: Callable[[str], int | None] | None = None
        self._lock = threading.Lock()
        self._probed = False

    def probe(self) -> None:
        with self._lock:
            if self._probed:
                return
            self._probed = True
            option = self.client.profile.context_tokens
            if option:
                self.tokens, self.source = option, "the profile's context tokens"
            else:
                props = self.client.server_json("/props")
                props = props if isinstance(props, dict) else {}
                settings = props.get("default_generation_settings")
                n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
                if not isinstance(n_ctx, int):
                    n_ctx = props.get("n_ctx")
                if isinstance(n_ctx, int) and n_ctx > 0:
                    self.tokens, self.source = n_ctx, "the server's /props"
                elif not self.client.silent:
                    listed = self.client.listed_context()
                    if listed:
                        self.tokens, self.source = listed, "the server's model listing"
            # a server that did not answer in time is not asked to count tokens
            self._counter = None if self.client.silent else self._find_counter()

    def learn(self, tokens: int, source: str) -> None:
        with self._lock:
            if self.tokens is None or tokens < self.tokens:
                self.tokens, self.source = tokens, source

    def _find_counter(self) -> Callable[[str], int | None] | None:
        client = self.client
        found = client.server_json("/tokenize", {"content": "a test"})
        if client.silent:
            return None
        if isinstance(found, dict) and isinstance(found.get("tokens"), list):

            def llama_cpp(text: str) -> int | None:
                reply = client.server_json("/tokenize", {"content": text})
                tokens = reply.get("tokens") if isinstance(reply, dict) else None
                return len(tokens) if isinstance(tokens, list) else None

            return llama_cpp
        body = {"input": "a test", "model": client.profile.model}
        found = client.server_json("/extras/tokenize/count", body)
        if isinstance(found, dict) and isinstance(found.get("count"), int):

            def llama_cpp_python(text: str) -> int | None:
                reply = client.server_json(
                    "/extras/tokenize/count", {"input": text, "model": client.profile.model}
                )
                count = reply.get("count") if isinstance(reply, dict) else None
                return count if isinstance(count, int) else None

            return llama_cpp_python
        return None

    def count(self, text: str) -> int:
        counter = self._counter
        if counter is not None and not self.client.silent:
            counted = counter(text)
            if counted is not None:
                return counted
        return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)

    def prompt_tokens(self, prompt: str | Messages) -> int:
        if isinstance(prompt, str):
            return self.count(prompt) + PROMPT_TOKENS
        text = "\n".join(m["content"] for m in prompt)
        return self.count(text) + PROMPT_TOKENS + MESSAGE_TOKENS * len(prompt)


# -- asking ----------------------------------------------------------------------------------


def _fit(
    context: Context,
    render: Callable[[str], str | Messages],
    evidence: Evidence,
    text: str,
    max_tokens: int,
    window: int,
) -> tuple[str, str | Messages, int]:
    """(evidence text, prompt, reply tokens) that fit ``window`` tokens."""
    reply_room = min(max_tokens, window // REPLY_SHARE)
    prompt = render(text)
    used = context.prompt_tokens(prompt)
    if used + reply_room > window and len(text) > MIN_EVIDENCE_CHARS:
        own = max(1, context.count(text))
        chars_per_token = len(text) / own
        room = window - reply_room - (used - own)
        target = int(room * chars_per_token * 0.95)
        for _ in range(ATTEMPTS):
            if target < MIN_EVIDENCE_CHARS:
                target = MIN_EVIDENCE_CHARS
            text = shorten(evidence.text, evidence.focus, target)
            prompt = render(text)
            used = context.prompt_tokens(prompt)
            if used + reply_room <= window or target == MIN_EVIDENCE_CHARS:
                break
            target = int(target * 0.85)
    return text, prompt, max(1, min(max_tokens, window - used))


def _note(sent: int, total: int, why: str) -> str:
    share = 100 * sent / total if total else 100
    return (
        f"evidence shortened to {sent:,} of {total:,} characters ({share:.0f}%) {why}; kept its "
        "first paragraph and the parts about the question"
    )


def ask_fitted(
    client: LLMClient,
    context: Context,
    render: Callable[[str], str | Messages],
    evidence: Evidence,
    *,
    max_tokens: int,
    cancel: threading.Event | None = None,
    abort: threading.Event | None = None,
) -> tuple[Reply, Sent]:
    """Ask ``render(evidence)``, its evidence shortened to fit the model's context; after a
    context-length error, once more with the evidence cut to what the error says fits."""
    context.probe()
    text, why = evidence.text, ""
    if evidence.cap is not None and len(text) > evidence.cap:
        text = shorten(text, evidence.focus, evidence.cap)
        why = evidence.cap_reason
    tokens = max_tokens
    prompt = render(text)
    if context.tokens:
        fitted, prompt, tokens = _fit(context, render, evidence, text, max_tokens, context.tokens)
        if len(fitted) < len(text):
            why = f"to fit the model's context of {context.tokens:,} tokens ({context.source})"
        text = fitted
    reply = client.ask(prompt, max_tokens=tokens, letter_grammar=False, cancel=cancel, abort=abort)
    if is_context_error(reply):
        window, requested = context_from_error(f"{reply.error} {reply.error_body or ''}")
        if window:
            context.learn(window, "the server's error message")
        elif requested:  # only what the request took: ask for a share of it
            window = max(1, int(requested * 0.7))
        else:
            window = max(1, int(context.prompt_tokens(prompt) * 0.5))
        fitted, prompt, tokens = _fit(context, render, evidence, text, max_tokens, window)
        if len(fitted) < len(text):
            text = fitted
            why = (
                f"to fit the model's context of {window:,} tokens (the server's error message: "
                "the whole evidence did not fit)"
            )
            reply = client.ask(
                prompt, max_tokens=tokens, letter_grammar=False, cancel=cancel, abort=abort
            )
            reply = _attempts(reply, 1)
    total = len(evidence.text)
    return reply, Sent(len(text), total, _note(len(text), total, why) if why else None)


def _attempts(reply: Reply, more: int) -> Reply:
    from dataclasses import replace

    return replace(reply, attempts=reply.attempts + more)
