"""Many prompts to one client, a few at a time, results in the order they arrive."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from bagel_studio.core.llm.client import LLMClient, Messages, Reply

K = TypeVar("K")


def ask_all(
    client: LLMClient,
    jobs: Sequence[tuple[K, str | Messages]],
    *,
    concurrency: int,
    max_tokens: int,
    cancel: threading.Event,
) -> Iterator[tuple[K, Reply]]:
    """(key, reply) for each job as it completes; after a cancel nothing new starts."""
    pending = iter(jobs)
    running: dict[Future[Reply], K] = {}
    abort = threading.Event()
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm-job") as pool:

        def submit() -> bool:
            for key, prompt in pending:
                future = pool.submit(
                    client.ask,
                    prompt,
                    max_tokens=max_tokens,
                    letter_grammar=False,
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
                    yield key, future.result()
        except BaseException:  # Ctrl+C, SIGTERM, a failed write: cut off what is in flight
            cancel.set()
            abort.set()
            raise
