"""Many prompts to one client, a few at a time, results in the order they arrive, stopped at
once when asked (``pooled``); and the rule that stops a run whose server accepts requests but
never answers."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TypeVar

from bagel_studio.core.llm.client import LLMClient, Messages, Reply
from bagel_studio.core.llm.fit import Context, Evidence, Sent, ask_fitted
from bagel_studio.core.llm.profiles import Profile

# Items in a row whose every attempt timed out before a run stops (``--stop-after-timeouts``).
TIMEOUTS_IN_A_ROW = 3


@dataclass(frozen=True)
class StopAdvice:
    """What a curator can do about a stopped run, in the words of where it runs."""

    refused: str
    timeouts: str


CLI_ADVICE = StopAdvice(
    refused="fix the key, --base-url or --model, then run again",
    timeouts="--timeout S allows more time, --stop-after-timeouts N more items, 0 never stops",
)
DESK_ADVICE = StopAdvice(
    refused="check the profile's key variable, base URL and model id, then run again",
    timeouts="a longer Timeout in the profile allows more time; run again to ask the rest",
)


@dataclass
class TimeoutStop:
    """Counts the items in a row that got no reply within the timeout (every attempt); at
    ``limit`` (0: never) ``note`` returns the message that stops the run. A server that accepts
    requests and never answers costs (retries + 1) x timeout per item: without this, hours."""

    profile: Profile
    limit: int = TIMEOUTS_IN_A_ROW
    advice: StopAdvice = CLI_ADVICE
    in_a_row: int = 0

    def note(self, reply: Reply) -> str | None:
        """Why the run must stop after ``reply``, or None: a refusal every other request would
        meet (the key, the route, the model), or the limit of timed-out items in a row."""
        if reply.fatal:
            error = (reply.error or "").rstrip(".")
            return (
                f"{error}; every other request would be refused the same way, so no more were "
                f"sent ({self.advice.refused})"
            )
        self.in_a_row = self.in_a_row + 1 if reply.timed_out else 0
        if not self.limit or self.in_a_row < self.limit:
            return None
        what = "an item" if self.limit == 1 else f"{self.limit} items in a row"
        return (
            f"{what} got no reply from {self.profile.base_url} within the timeout "
            f"({self.profile.timeout:g} s, {reply.attempts} attempt"
            f"{'s' if reply.attempts != 1 else ''} each): the server accepts requests but does "
            f"not answer, so no more were sent; what was answered before is kept "
            f"({self.advice.timeouts})"
        )


K = TypeVar("K")
R = TypeVar("R")
Render = Callable[[str], "str | Messages"]  # the prompt around a (possibly shortened) evidence
WAKE = 0.2  # seconds between looks at a stop while waiting for replies


@dataclass
class Flight:
    """What a run left in flight when it stopped sending (a cancel, SIGTERM, Ctrl+C, a refusal
    every request would meet): the requests sent and not answered then (``at_stop``, None while
    the run has not stopped), and those of them abandoned at an abort, whose replies are never
    stored (``cut_off``)."""

    at_stop: int | None = None
    cut_off: int = 0


class _NotSent:
    """A call whose turn came after the run stopped sending: nothing was sent."""


NOT_SENT = _NotSent()


class _Sending:
    """The requests sent and not answered yet, counted on the threads that send them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self, step: int) -> None:
        with self._lock:
            self.count += step


def pooled(
    calls: Iterable[tuple[K, Callable[[], R]]],
    *,
    concurrency: int,
    ahead: int,
    cancel: threading.Event,
    abort: threading.Event,
    stops: Callable[[R], bool],
    flight: Flight | None = None,
) -> Iterator[list[tuple[K, R]]]:
    """Batches of (key, result) of ``calls`` as they complete, ``concurrency`` at a time and
    ``ahead`` more queued. A call whose turn comes after ``cancel`` sends nothing; a result for
    which ``stops`` is true (a refusal every request would meet) sets ``cancel`` on the thread
    that got it, before that thread takes another call, so that no request leaves after it.
    After ``cancel`` the calls in flight still arrive (within the timeout: they are paid for);
    after ``abort`` they are no longer waited for (cut off at their next bytes, their replies
    dropped). An exception here (a failed write, Ctrl+C in a caller without handlers) aborts."""
    waiting = iter(calls)
    running: dict[Future[R | _NotSent], K] = {}
    sending = _Sending()
    flight = flight if flight is not None else Flight()
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm")

    def call(make: Callable[[], R]) -> R | _NotSent:
        if cancel.is_set():
            return NOT_SENT
        sending.add(1)
        try:
            result = make()
        finally:
            sending.add(-1)
        if stops(result):
            cancel.set()
        return result

    def submit(count: int) -> None:
        for key, make in itertools.islice(waiting, count):
            running[pool.submit(call, make)] = key

    try:
        submit(concurrency + ahead)
        while running and not abort.is_set():
            if cancel.is_set():
                if flight.at_stop is None:
                    flight.at_stop = sending.count
                for future in [f for f in running if f.cancel()]:  # queued: never sent
                    del running[future]
                if not running:
                    break
            done, _ = wait(running, timeout=WAKE, return_when=FIRST_COMPLETED)
            batch = [(running.pop(f), f.result()) for f in done]
            if not cancel.is_set():
                submit(len(batch))
            answered = [(key, result) for key, result in batch if not isinstance(result, _NotSent)]
            if answered:
                yield answered
    except BaseException:
        cancel.set()
        abort.set()
        raise
    finally:
        if abort.is_set():
            if flight.at_stop is None:
                flight.at_stop = sending.count
            flight.cut_off = sending.count
        pool.shutdown(wait=not abort.is_set(), cancel_futures=True)


def ask_all(
    client: LLMClient,
    jobs: Sequence[tuple[K, Render, Evidence]],
    *,
    concurrency: int,
    max_tokens: int,
    cancel: threading.Event,
    abort: threading.Event | None = None,
    flight: Flight | None = None,
) -> Iterator[tuple[K, Reply, Sent]]:
    """(key, reply, what was sent of the evidence) for each job as it completes, each prompt
    fitted into the model's context (``fit``); stopped as ``pooled`` says."""
    context = Context(client)
    abort = abort or threading.Event()

    def ask(render: Render, evidence: Evidence) -> Callable[[], tuple[Reply, Sent]]:
        return lambda: ask_fitted(client, context, render, evidence, max_tokens=max_tokens,
                                  cancel=cancel, abort=abort)  # fmt: skip

    calls = ((key, ask(render, evidence)) for key, render, evidence in jobs)
    for batch in pooled(calls, concurrency=concurrency, ahead=0, cancel=cancel, abort=abort,
                        stops=lambda found: found[0].fatal, flight=flight):  # fmt: skip
        for key, (reply, sent) in batch:
            yield key, reply, sent
