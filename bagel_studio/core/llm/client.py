"""One request to an OpenAI-compatible endpoint, with retries, backoff and a per-request timeout.

``openai`` is imported when the first client is made, never at start-up. The client's own retries
are off: this module retries 429 and 5xx replies, timeouts and dropped connections itself, waiting
as long as the server's ``Retry-After`` asks (capped), else with exponential backoff, so that every
attempt is counted and a cancel is honoured while waiting. Errors are returned, never raised, except
for an endpoint that cannot be used at all (``EndpointError``).

The profile's timeout bounds a whole request, not only each wait for bytes: a server that keeps
sending (a stream that never ends, a byte a second) is cut off when the time is up. A cancel lets
the replies in flight arrive (they are paid for); an ``abort`` (Ctrl+C, SIGTERM, a failed write)
cuts them off at their next bytes.

A reply is read up to ``REPLY_LIMIT`` bytes and no further: the text it holds up to there is the
reply, with a note that it was cut (``Reply.note``). Replies come uncompressed (a compressed one
could unpack to any size). A redirect to another host is refused (``RedirectRefused``): the
request, and the key with it, goes only where the profile says.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from bagel_studio.core.llm.profiles import CHAT, Profile, redact

Messages = list[dict[str, str]]

# The most of one reply that is read, in bytes of its HTTP body. A curator asks a reasoning model
# for at most some 32,768 tokens; at about 4 bytes a token that is 128 KiB of text, which JSON's
# escapes (``\uXXXX``: 6 bytes for one character) can stretch to 768 KiB at worst: 1 MiB holds
# any reply asked for in earnest (the evaluation asks for 16 tokens, the judge and the generator
# for a few hundred). A server that ignores ``max_tokens`` or streams without end then costs at
# most 1 MiB of memory per request in flight, and of the project per stored reply.
REPLY_LIMIT = 1 << 20


class EndpointError(RuntimeError):
    """The endpoint cannot be reached or refuses the key: nothing can be asked."""


class ReplyCut(Exception):
    """A reply reached ``REPLY_LIMIT``: what arrived up to it, and the size the server
    announced (``Content-Length``), if it did."""

    def __init__(self, received: bytes, announced: int | None) -> None:
        super().__init__(f"the reply was longer than {size_text(REPLY_LIMIT)}")
        self.received, self.announced = received, announced

    def note(self) -> str:
        more = f" ({self.announced:,} bytes announced)" if self.announced else ""
        return f"cut at {size_text(REPLY_LIMIT)}: the server sent more{more}; the rest was not read"


class RedirectRefused(Exception):
    """The server sent the request to another host, which is not followed."""


@dataclass(frozen=True)
class Reply:
    text: str | None
    error: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: int = 1
    # The endpoint refused in a way every other request would meet too (the key, the route or
    # the model: HTTP 401, 403, 404): a run stops instead of asking every item in vain.
    fatal: bool = False
    # Every attempt ended without a reply within the timeout: the server accepts requests but
    # does not answer (a run stops after a few such items in a row, ``jobs.TimeoutStop``).
    timed_out: bool = False
    # The error's JSON body as the server sent it (its numbers: llama.cpp's ``n_ctx`` of a
    # context-length error), for a refused request; never stored.
    error_body: str | None = None
    # Said of a reply stored as it is not: cut at ``REPLY_LIMIT`` (stored with the reply).
    note: str | None = None


FATAL_STATUSES = frozenset({401, 403, 404})


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 4
    backoff: float = 0.5  # seconds before the first retry, doubled each time
    max_wait: float = 30.0


def _openai() -> Any:
    return importlib.import_module("openai")


_request_state = threading.local()  # the abort event of the request this thread sends


def _http_module(openai: Any) -> Any:
    """The HTTP library the installed ``openai`` is built on (``httpx``, or its successor)."""
    client_class = next(c for c in openai.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    return importlib.import_module(client_class.__module__.partition(".")[0])


def _http_client(openai: Any, seconds: float) -> Any:
    """``openai``'s default HTTP client whose every reply must arrive whole within ``seconds``
    and is read up to ``REPLY_LIMIT`` bytes, uncompressed, from the profile's host only."""
    http = _http_module(openai)

    class Body(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(
            self,
            inner: Any,
            deadline: float,
            abort: threading.Event | None,
            announced: int | None,
        ) -> None:
            self._inner, self._deadline, self._abort = inner, deadline, abort
            self._announced = announced
            self._received = bytearray()

        def __iter__(self) -> Any:
            for chunk in self._inner:
                if self._abort is not None and self._abort.is_set():
                    raise http.ReadError("stopped while the reply was arriving")
                if time.monotonic() > self._deadline:
                    raise http.ReadTimeout(
                        f"the reply was still arriving after {seconds:g} s (the timeout)"
                    )
                room = REPLY_LIMIT - len(self._received)
                self._received += chunk[:room]
                if len(chunk) > room:  # no byte more is read: the connection is closed
                    raise ReplyCut(bytes(self._received), self._announced)
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class Deadline(http.BaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            limits = http.Limits(max_connections=1000, max_keepalive_connections=100)
            self._inner = http.HTTPTransport(limits=limits)

        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + seconds
            request.headers["Accept-Encoding"] = "identity"
            response = self._inner.handle_request(request)
            location = response.headers.get("location")
            if 300 <= response.status_code < 400 and location:
                _refuse_another_host(request.url, request.url.join(location), response)
            abort = getattr(_request_state, "abort", None)
            length = response.headers.get("content-length", "")
            # A body compressed though asked not to be is read as it came, never unpacked.
            headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-encoding"]
            return http.Response(
                status_code=response.status_code,
                headers=headers,
                stream=Body(response.stream, deadline, abort,
                            int(length) if length.isdigit() else None),
                extensions=response.extensions,
            )  # fmt: skip

        def close(self) -> None:
            self._inner.close()

    return openai.DefaultHttpxClient(transport=Deadline(), timeout=seconds)


def _refuse_another_host(origin: Any, target: Any, response: Any) -> None:
    """Raise RedirectRefused for a redirect from ``origin`` to another host (or from https to
    http): the request would carry the key there."""
    same = target.host.lower() == origin.host.lower()
    if same and not (origin.scheme == "https" and target.scheme != "https"):
        return
    response.close()
    where = "another host" if not same else "plain http"
    raise RedirectRefused(
        f"{_without_query(origin)} redirects to {_without_query(target)}: {where}, not followed "
        "(the request and its key go only to the profile's base URL; give that address as "
        "--base-url if it is meant)"
    )


def _without_query(url: Any) -> str:
    return str(url.copy_with(query=None, fragment=None))


def size_text(count: int) -> str:
    """``count`` bytes in words: ``1 MiB`` for whole mebibytes, else ``1,234 bytes``."""
    return f"{count // (1 << 20)} MiB" if count % (1 << 20) == 0 else f"{count:,} bytes"


def _cause(exc: BaseException, kind: type[Exception]) -> Any:
    """The exception of ``kind`` that ``exc`` was raised from (``openai`` wraps what the
    transport raised into APIConnectionError), or None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


_TEXT_FIELD = re.compile(r'"(?:content|text)"\s*:\s*"')


def partial_text(body: bytes) -> str | None:
    """The completion's text in the start of a reply cut short: the first ``content`` (chat) or
    ``text`` (completions) string, to its end or to the cut (a character or an escape cut in
    half left out); None when the start holds none."""
    text = body.decode("utf-8", "ignore")
    found = _TEXT_FIELD.search(text)
    if found is None:
        return None
    try:  # the string whole (the reply was cut after it)
        value = json.JSONDecoder().raw_decode(text, found.end() - 1)[0]
        return value if isinstance(value, str) else None
    except json.JSONDecodeError:
        pass
    rest = text[found.end() :]
    for trim in range(7):  # the longest escape, ``\uXXXX``, is 6 characters
        try:
            cut: str = json.loads('"' + rest[: len(rest) - trim] + '"')
            return cut
        except json.JSONDecodeError:
            continue
    return None


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _body_text(body: object) -> str | None:
    if body is None:
        return None
    try:
        return json.dumps(body)[:2000]
    except (TypeError, ValueError):
        return str(body)[:2000]


def _is_timeout(exc: BaseException) -> bool:
    """Whether a failed attempt got no (whole) reply within the timeout: ``openai``'s own timeout,
    or the transport's deadline on a body still arriving."""
    seen: BaseException | None = exc
    while seen is not None:
        if "Timeout" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def serves(served: list[str], model: str) -> bool:
    """Whether a server listing ``served`` answers ``model``: the same id, Ollama's ``:latest``
    tag left out, or a listing that prefixes ids with a folder (``models/NAME``). A server such
    as llama.cpp's answers any name with its one model, so a typo would be stored as another
    model's answers: the listing is what tells."""
    return any(
        name == model or name == f"{model}:latest" or name.endswith(f"/{model}") for name in served
    )


class LLMClient:
    """Requests to one profile's endpoint; thread-safe (one HTTP connection pool)."""

    def __init__(self, profile: Profile, policy: RetryPolicy | None = None) -> None:
        refusal = profile.key_refusal()
        if refusal is not None:  # httpx would quote it in its error, or fail in a traceback
            raise EndpointError(refusal)
        openai = _openai()
        self.profile = profile
        self.policy = policy or RetryPolicy()
        self._openai = openai
        self._key = profile.api_key() or "no-key"
        self.silent = False  # a request beside the OpenAI routes got no reply in time
        self._http = _http_client(openai, profile.timeout)
        self._client = openai.OpenAI(
            base_url=profile.base_url,
            api_key=self._key,
            timeout=profile.timeout,
            max_retries=0,
            http_client=self._http,
        )

    def close(self) -> None:
        self._client.close()

    def check(self) -> None:
        """Raise EndpointError when the endpoint is unreachable or rejects the key."""
        try:
            listing = self._client.models.list()
        except Exception as exc:
            self._listing_failed(exc)
            return  # a server without /models (or a failing one) is found out per request
        served = [str(getattr(m, "id", "")) for m in getattr(listing, "data", None) or []]
        if served and not serves(served, self.profile.model):
            more = len(served) - 12
            shown = ", ".join(served[:12]) + (f" and {more} more" if more > 0 else "")
            raise EndpointError(
                f"{self.profile.base_url} does not serve the model {self.profile.model!r}; it "
                f"serves {shown} (--model takes one of those, or a stored profile's label)"
            )

    def _listing_failed(self, exc: Exception) -> None:
        """Raise EndpointError when the failed model listing says that nothing can be asked.

        That is an unreachable endpoint, a refused key, a redirect to another host (``openai``
        wraps what the transport raises, or not, depending on its version).
        """
        openai = self._openai
        refused = _cause(exc, RedirectRefused)
        if refused is not None:
            raise EndpointError(str(refused)) from exc
        if _cause(exc, ReplyCut) is not None:
            return  # a listing too long to read tells nothing: the requests will
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            raise EndpointError(
                f"{self.profile.base_url} refused the key from ${self.profile.api_key_env} "
                f"({self.profile.key_state()}): {self._message(exc)}"
            ) from exc
        if isinstance(exc, openai.APIConnectionError):
            raise EndpointError(
                f"cannot reach {self.profile.base_url}: {self._message(exc)}"
            ) from exc
        if not isinstance(exc, openai.APIError):
            raise exc

    def listed_context(self) -> int | None:
        """The model's context length as the server's ``/models`` listing gives it (vLLM's
        ``max_model_len``), or None."""
        try:
            listing = self._client.models.list()
        except Exception:  # no listing: nothing learnt
            return None
        for entry in getattr(listing, "data", None) or []:
            if serves([str(getattr(entry, "id", ""))], self.profile.model):
                value = getattr(entry, "max_model_len", None)
                if isinstance(value, int) and value > 0:
                    return value
        return None

    def server_json(
        self, path: str, body: dict[str, Any] | None = None, *, timeout: float = 10.0
    ) -> Any:
        """GET (or, with ``body``, POST) ``path`` of the server beside its OpenAI routes
        (llama.cpp's ``/props``, ``/tokenize``) and return its JSON; None when the server has no
        such route or says nothing readable within ``timeout`` (then ``silent`` is set, and
        the callers ask no more of it). Never raises."""
        root = self.profile.base_url.rstrip("/")
        root = root[: -len("/v1")] if root.endswith("/v1") else root
        headers = {"Authorization": f"Bearer {self._key}"}
        seconds = min(timeout, self.profile.timeout)
        try:
            if body is None:
                response = self._http.get(root + path, headers=headers, timeout=seconds)
            else:
                response = self._http.post(root + path, json=body, headers=headers,
                                           timeout=seconds)  # fmt: skip
            if response.status_code != 200:
                return None
            return response.json()
        except Exception as exc:  # no such route, not JSON, a dropped connection: nothing learnt
            if _is_timeout(exc):
                self.silent = True
            return None

    def _message(self, exc: BaseException) -> str:
        cause = exc.__cause__ or exc.__context__
        text = str(exc)
        if isinstance(exc, self._openai.APITimeoutError) and str(cause) in ("timed out", "None"):
            text = (
                f"timed out: no reply within {self.profile.timeout:g} s (--timeout S allows more)"
            )
        elif cause is not None and isinstance(exc, self._openai.APIConnectionError):
            text = f"{text} ({type(cause).__name__}: {cause})"
        return redact(" ".join(text.split())[:500], self.profile)

    def ask(
        self,
        prompt: str | Messages,
        *,
        max_tokens: int | None = None,
        letter_grammar: bool = True,
        cancel: threading.Event | None = None,
        abort: threading.Event | None = None,
    ) -> Reply:
        """Send one prompt (a string, or chat messages); retry what may succeed on retry.
        ``cancel`` stops the retries; ``abort`` also cuts off a reply that is arriving."""
        openai = self._openai
        policy = self.policy
        attempts = 0
        _request_state.abort = abort
        if abort is not None:
            cancel = cancel or abort
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                text, usage = self._send(prompt, max_tokens, letter_grammar)
            except (
                openai.RateLimitError,
                openai.InternalServerError,
                openai.APIConnectionError,
            ) as exc:
                final = self._not_retried(exc, attempts, started)
                if final is not None:
                    return final
                error = self._message(exc)
                wait = _retry_after(exc)
                timed_out = _is_timeout(exc)
            except openai.APIStatusError as exc:
                if exc.status_code < 500:
                    fatal = exc.status_code in FATAL_STATUSES
                    body = _body_text(getattr(exc, "body", None))
                    return Reply(None, error=self._message(exc), attempts=attempts, fatal=fatal,
                                 error_body=body)  # fmt: skip
                error, wait = self._message(exc), _retry_after(exc)
                timed_out = False
            except Exception as exc:  # a malformed reply: the client could not read it
                final = self._not_retried(exc, attempts, started)
                return final or Reply(None, error=self._message(exc), attempts=attempts)
            else:
                latency = (time.perf_counter() - started) * 1000
                return Reply(text, None, latency, usage[0], usage[1], attempts)
            if attempts > policy.retries or (cancel is not None and cancel.is_set()):
                return Reply(None, error=error, attempts=attempts, timed_out=timed_out)
            delay = policy.backoff * 2 ** (attempts - 1) if wait is None else wait
            delay = min(delay, policy.max_wait)
            if cancel is not None:
                if cancel.wait(delay):
                    return Reply(None, error=error, attempts=attempts, timed_out=timed_out)
            else:
                time.sleep(delay)

    def _not_retried(self, exc: BaseException, attempts: int, started: float) -> Reply | None:
        """The reply to a request that asking again would not change: one cut at the limit
        (its text up to there, with a note), or one sent to another host (a refusal every
        other request would meet); None for the others."""
        cut = _cause(exc, ReplyCut)
        if cut is not None:
            text = partial_text(cut.received)
            if text is None:
                first = size_text(REPLY_LIMIT)
                error = f"no completion text in the reply's first {first}; {cut.note()}"
                return Reply(None, error=error, attempts=attempts)
            latency = (time.perf_counter() - started) * 1000
            return Reply(text, None, latency, attempts=attempts, note=cut.note())
        refused = _cause(exc, RedirectRefused)
        if refused is not None:
            return Reply(None, error=str(refused), attempts=attempts, fatal=True)
        return None

    def _send(
        self, prompt: str | Messages, max_tokens: int | None, letter_grammar: bool
    ) -> tuple[str, tuple[int | None, int | None]]:
        profile = self.profile
        options: dict[str, Any] = {
            "model": profile.model,
            "max_tokens": max_tokens or profile.max_tokens,
            "temperature": profile.temperature,
            "seed": profile.seed,
        }
        extra = profile.extra_body() if letter_grammar else None
        if extra:
            options["extra_body"] = extra
        if isinstance(prompt, list) or profile.api_style == CHAT:
            messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
            response = self._client.chat.completions.create(messages=messages, **options)
        else:
            response = self._client.completions.create(prompt=prompt, **options)
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise ValueError(
                f"the server's reply is not an OpenAI-style reply: {_preview(response)}"
            )
        if not choices:
            text = None
        elif isinstance(prompt, list) or profile.api_style == CHAT:
            text = choices[0].message.content
        else:
            text = choices[0].text
        usage = getattr(response, "usage", None)
        tokens = (
            getattr(usage, "prompt_tokens", None),
            getattr(usage, "completion_tokens", None),
        )
        return text or "", tokens


def _preview(response: object) -> str:
    """The start of a reply that is not a completion (an HTML page, plain text), on one line."""
    text = response if isinstance(response, str) else repr(response)
    text = " ".join(text.split())
    return (text[:200] + "…") if len(text) > 200 else text or "(empty)"
