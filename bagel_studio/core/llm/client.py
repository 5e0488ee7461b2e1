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
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from bagel_studio.core.llm.profiles import CHAT, Profile, redact

Messages = list[dict[str, str]]


class EndpointError(RuntimeError):
    """The endpoint cannot be reached or refuses the key: nothing can be asked."""


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
    """``openai``'s default HTTP client whose every reply must arrive whole within ``seconds``."""
    http = _http_module(openai)

    class Body(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, deadline: float, abort: threading.Event | None) -> None:
            self._inner, self._deadline, self._abort = inner, deadline, abort

        def __iter__(self) -> Any:
            for chunk in self._inner:
                if self._abort is not None and self._abort.is_set():
                    raise http.ReadError("stopped while the reply was arriving")
                if time.monotonic() > self._deadline:
                    raise http.ReadTimeout(
                        f"the reply was still arriving after {seconds:g} s (the timeout)"
                    )
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class Deadline(http.BaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            limits = http.Limits(max_connections=1000, max_keepalive_connections=100)
            self._inner = http.HTTPTransport(limits=limits)

        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + seconds
            response = self._inner.handle_request(request)
            abort = getattr(_request_state, "abort", None)
            return http.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=Body(response.stream, deadline, abort),
                extensions=response.extensions,
            )

        def close(self) -> None:
            self._inner.close()

    return openai.DefaultHttpxClient(transport=Deadline(), timeout=seconds)


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
        openai = self._openai
        try:
            listing = self._client.models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise EndpointError(
                f"{self.profile.base_url} refused the key from ${self.profile.api_key_env} "
                f"({self.profile.key_state()}): {self._message(exc)}"
            ) from exc
        except openai.APIConnectionError as exc:
            raise EndpointError(
                f"cannot reach {self.profile.base_url}: {self._message(exc)}"
            ) from exc
        except openai.APIError:
            return  # a server without /models (or a failing one) is found out per request
        served = [str(getattr(m, "id", "")) for m in getattr(listing, "data", None) or []]
        if served and not serves(served, self.profile.model):
            more = len(served) - 12
            shown = ", ".join(served[:12]) + (f" and {more} more" if more > 0 else "")
            raise EndpointError(
                f"{self.profile.base_url} does not serve the model {self.profile.model!r}; it "
                f"serves {shown} (--model takes one of those, or a stored profile's label)"
            )

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
                return Reply(None, error=self._message(exc), attempts=attempts)
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
