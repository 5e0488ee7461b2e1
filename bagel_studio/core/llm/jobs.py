"""Many prompts to one client, a few at a time, results in the order they arrive; and the rule
that stops a run whose server accepts requests but never answers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
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
Render = Callable[[str], "str | Messages"]  # the prompt around a (possibly shortened) evidence


def ask_all(
    client: LLMClient,
    jobs: Sequence[tuple[K, Render, Evidence]],
    *,
    concurrency: int,
    max_tokens: int,
    cancel: threading.Event,
) -> Iterator[tuple[K, Reply, Sent]]:
    """(key, reply, what was sent of the evidence) for each job as it completes, each prompt
    fitted into the model's context (``fit``); after a cancel nothing new starts."""
    pending = iter(jobs)
    running: dict[Future[tuple[Reply, Sent]], K] = {}
    abort = threading.Event()
    context = Context(client)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm-job") as pool:

        def submit() -> bool:
            for key, render, evidence in pending:
                future = pool.submit(
                    ask_fitted,
                    client,
                    context,
                    render,
                    evidence,
                    max_tokens=max_tokens,
                    cancel=cancel,
                    abort=abort,
                )
                running[future] = key
                return True
            return False

        for _ in range(concurrency):
            submit()
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    key = running.pop(future)
                    if not cancel.is_set():
                        submit()
                    reply, sent = future.result()
                    yield key, reply, sent
        except BaseException:  # Ctrl+C, SIGTERM, a failed write: cut off what is in flight
            cancel.set()
            abort.set()
            raise
