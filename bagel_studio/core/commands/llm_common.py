"""Options and helpers shared by the LLM subcommands (evaluate, judge, regenerate, batch-*)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from bagel_studio.core.cli import UsageError
from bagel_studio.core.llm.client import LLMClient, RetryPolicy
from bagel_studio.core.llm.jobs import Flight
from bagel_studio.core.llm.profiles import Profile, ProfileError
from bagel_studio.core.model import Item, ItemContent
from bagel_studio.core.store import Store

T = TypeVar("T")


def add_profile_options(parser: argparse.ArgumentParser, *, model_help: str) -> None:
    parser.add_argument("--model", required=True, metavar="MODEL", help=model_help)
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp's server, Ollama); with it, "
        "--model is the model id and a profile is made (or updated) on the fly",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable that holds the API key (default OPENAI_API_KEY); the key "
        "itself is never stored",
    )
    parser.add_argument("--label", help="the profile's label (default: the model id)")
    parser.add_argument(
        "--api-style",
        choices=("chat", "completions"),
        help="chat completions (default) or plain completions for base models",
    )
    parser.add_argument(
        "--grammar",
        action="store_true",
        default=None,
        help="constrain the reply to one letter with llama.cpp's grammar",
    )
    parser.add_argument("--max-tokens", type=int, metavar="N", help="tokens per reply")
    parser.add_argument("--timeout", type=float, metavar="S", help="seconds per request")
    parser.add_argument("--concurrency", type=int, metavar="N", help="requests at a time")
    parser.add_argument(
        "--context-tokens",
        type=int,
        metavar="N",
        help="the model's context window in tokens, for a server that does not say it "
        "(llama.cpp's /props and vLLM's model listing do): judge and regenerate cut an item's "
        "evidence to fit it, and say so in what they store; kept in the profile",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=4,
        metavar="N",
        help="retries of a request after 429, 5xx, a timeout or a dropped connection (default 4)",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options of the commands that ask a server item after item (evaluate, judge, regenerate)."""
    parser.add_argument(
        "--stop-after-timeouts",
        type=int,
        default=3,
        metavar="N",
        help="stop the run when N items in a row got no reply within --timeout (every attempt): "
        "a server that accepts requests but never answers; what was answered is kept (default "
        "3, 0 never stops)",
    )


def stop_after_timeouts(args: argparse.Namespace) -> int:
    if args.stop_after_timeouts < 0:
        raise UsageError("--stop-after-timeouts must be 0 or more")
    return int(args.stop_after_timeouts)


def retry_policy(args: argparse.Namespace) -> RetryPolicy:
    if args.retries < 0:
        raise UsageError("--retries must be 0 or more")
    return RetryPolicy(retries=args.retries)


def profile_from_args(store: Store, args: argparse.Namespace) -> tuple[Profile, bool]:
    """The profile the command line names; a new one made from a bare --model (no --base-url) is
    announced on stderr, naming the stored ones, since it is most often a mistyped label."""
    from bagel_studio.core.llm.project import find_profile, load_profiles, resolve_profile

    label = args.label or args.model
    before = find_profile(store, label)
    new = args.base_url is None and before is None
    known = ", ".join(p.label for p in load_profiles(store)) or "none yet"
    try:
        profile, changed = resolve_profile(
            store,
            args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            label=args.label,
            api_style=args.api_style,
            grammar=args.grammar,
            max_tokens=args.max_tokens,
            timeout=args.timeout,
            concurrency=args.concurrency,
            context_tokens=args.context_tokens,
        )
    except ProfileError as exc:
        raise UsageError(str(exc)) from exc
    if new:
        print(
            f"no model profile {label!r} in this project (its profiles: {known}): asking the "
            f"model id {args.model!r} at {profile.base_url} (--base-url names another server)",
            file=sys.stderr,
        )
    if before is not None and before.settings_hash() != profile.settings_hash():
        was, now = before.measured(), profile.measured()
        what = ", ".join(f"{k} {was[k]!r} -> {now[k]!r}" for k in was if was[k] != now[k])
        print(
            f"profile {label!r} changes what is measured ({what}): its answers under the old "
            "settings stay stored but no longer count, here, in stats, levels and the report "
            "(--label NEW keeps both)",
            file=sys.stderr,
        )
    return profile, changed


class RunSignals:
    """SIGTERM and Ctrl+C (SIGINT) while a command asks a model: the first stops sending at
    once (``cancel``: nothing queued or retried leaves; the replies in flight arrive within the
    request timeout and are stored); a second cuts those off (``abort``) and the command ends
    at once. Raising out of the run instead, as ``cli`` does for other commands, would wait for
    every request queued and throw their replies away."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.abort = threading.Event()
        self.received: list[int] = []
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: object) -> None:
        self.received.append(signum)
        if self.cancel.is_set() and len(self.received) > 1:
            self.abort.set()
        self.cancel.set()

    def __enter__(self) -> RunSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def exit_code(self) -> int | None:
        """128 + the first signal's number (143 SIGTERM, 130 Ctrl+C), or None without one."""
        return 128 + self.received[0] if self.received else None

    def ended(self, flight: Flight) -> int | None:
        """After the run: None when no signal came; else the line that says what was sent,
        kept and cut off, on stderr, and the exit status to end with."""
        code = self.exit_code()
        if code is None:
            return None
        word = "terminated" if self.received[0] == signal.SIGTERM else "interrupted"
        at_stop, cut = flight.at_stop or 0, flight.cut_off
        replies = f"{at_stop} {'reply' if at_stop == 1 else 'replies'} in flight"
        if not at_stop:
            kept = "no reply was in flight"
        elif not cut:
            kept = f"the {replies} arrived and {'is' if at_stop == 1 else 'are'} stored"
        elif cut == at_stop:
            kept = (
                f"the {replies} {'was' if cut == 1 else 'were'} cut off by a second signal "
                "(not stored)"
            )
        else:
            kept = (f"{at_stop - cut} of the {replies} arrived and are stored, the other {cut} "
                    "were cut off by a second signal")  # fmt: skip
        print(
            f"{word}: no request was sent after the signal; {kept}; run the same command "
            "again to resume",
            file=sys.stderr,
        )
        return code


def terminal_progress(label: str) -> Callable[[int, int], None]:
    """A progress bar on stderr when it is a terminal, else nothing."""
    if not sys.stderr.isatty():
        return lambda done, total: None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def connected_client(profile: Profile, args: argparse.Namespace) -> LLMClient:
    """A client whose endpoint answered; an unreachable endpoint is a usage error (exit 2)."""
    from bagel_studio.core.llm.client import EndpointError, LLMClient

    try:
        client = LLMClient(profile, retry_policy(args))
    except EndpointError as exc:  # a key no request can carry: nothing was sent
        raise UsageError(str(exc)) from exc
    try:
        client.check()
    except EndpointError as exc:
        client.close()
        raise UsageError(str(exc)) from exc
    return client


def release_order(store: Store, seed: int) -> dict[str, tuple[ItemContent, tuple[int, ...]]]:
    """The items as the release with ``seed`` shows them (``llm.evaluate.Shown``)."""
    from bagel_studio.core.export import shown_order  # lazy: the export is heavy

    return shown_order(store, seed)


def stored_items(store: Store, item_ids: list[str] | None) -> list[Item]:
    """The items named (all when none are), with a usage error for ids not in the project."""
    if not item_ids:
        return store.items.get_many()
    items = store.items.get_many(item_ids)
    missing = sorted(set(item_ids) - {item.id for item in items})
    if missing:
        raise UsageError("no such item: " + ", ".join(missing))
    return items


def ask_model(
    store: Store,
    args: argparse.Namespace,
    items: list[Item],
    task: Callable[..., T],
) -> tuple[Profile, T, RunSignals]:
    """Run ``task(store, profile, items, client=..., progress=..., cancel=..., abort=...)`` with
    the profile the command line names: the endpoint must answer first, and a profile made or
    changed on the command line is stored before anything is asked (judge, regenerate). The
    signals that stopped it, if any, come back with its result (``RunSignals.ended``)."""
    from bagel_studio.core.operations.llm import save_profile

    limit = stop_after_timeouts(args)
    profile, changed = profile_from_args(store, args)
    client = connected_client(profile, args)
    if changed:
        save_profile(store, profile)
    try:
        with RunSignals() as signals:
            kwargs: dict[str, Any] = {
                "client": client,
                "progress": terminal_progress(profile.label),
                "stop_after_timeouts": limit,
                "cancel": signals.cancel,
                "abort": signals.abort,
            }
            result = task(store, profile, items, **kwargs)
    finally:
        client.close()
    return profile, result, signals
