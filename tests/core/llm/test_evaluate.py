"""Closed-book evaluation against the scripted server, through the real openai client."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.export import plan_export
from bagel_studio.core.llm.client import LLMClient, RetryPolicy
from bagel_studio.core.llm.evaluate import evaluate, questions
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.llm.templates import evaluation_prompt
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

FAST = RetryPolicy(retries=2, backoff=0.01, max_wait=2.0)


def answers(path: Path, label: str) -> list[dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        return store.llm.all_answers(label)


def cli(*args: str) -> int:
    return run(list(args))


def test_gold_persona_answers_everything_strictly(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli("evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                 "--json")  # fmt: skip
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["asked"] == len(ITEMS)
    assert (summary["strict"], summary["invalid"], summary["failed"]) == (len(ITEMS), 0, 0)
    assert summary["accuracy"] == 1.0
    stored = answers(llm_project, "gold")
    assert {a["item_id"] for a in stored} == {i[0] for i in ITEMS}
    for answer in stored:
        assert answer["option_order"] == "[0, 1, 2, 3]"
        assert answer["raw_reply"] in "ABCD" and answer["correct"] == 1
        assert answer["latency_ms"] is not None and answer["prompt_tokens"] > 0
    body = scripted.bodies[0]
    assert (body["temperature"], body["seed"]) == (0.0, 0)


def test_a_finished_run_asks_nothing_again(llm_project: Path, scripted: ScriptedServer) -> None:
    assert cli("evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url) == 0
    asked = scripted.total()
    assert cli("evaluate", str(llm_project), "--model", "gold") == 0  # the stored profile
    assert scripted.total() == asked + 1  # only the endpoint check (GET /models)
    assert len(answers(llm_project, "gold")) == len(ITEMS)


@pytest.mark.parametrize(
    ("persona", "parse", "status"),
    [("verbose", "lenient", 0), ("rambling", "invalid", 1), ("empty", "invalid", 1)],
)
def test_lenient_and_invalid_replies_are_kept(
    llm_project: Path, scripted: ScriptedServer, persona: str, parse: str, status: int
) -> None:
    url = scripted.url
    assert cli("evaluate", str(llm_project), "--model", persona, "--base-url", url) == status
    stored = answers(llm_project, persona)
    assert {a["parse"] for a in stored} == {parse}
    if parse == "invalid":
        assert all(a["letter"] is None and a["correct"] == 0 for a in stored)
    else:
        assert all(a["raw_reply"].startswith("The answer is") for a in stored)


def test_retry_after_is_honoured_and_500_retried(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    scripted.fail_next("429", retry_after="1", question="barn owl")
    scripted.fail_next("500", question="dipper")
    profile = Profile("gold", "gold", scripted.url, concurrency=2)
    with Store.open(llm_project) as store:
        started = time.monotonic()
        summary = evaluate(store, profile, questions(store), policy=FAST)
        elapsed = time.monotonic() - started
    assert summary.failed == 0 and summary.correct == len(ITEMS)
    assert elapsed >= 1.0  # the Retry-After of 1 s, not the 10 ms backoff
    owl = next(q for q in scripted.gold if "barn owl" in q)
    dipper = next(q for q in scripted.gold if "dipper" in q)
    assert scripted.asked[("gold", owl)] == 2 and scripted.asked[("gold", dipper)] == 2
    stored = {a["item_id"]: a for a in answers(llm_project, "gold")}
    assert stored["wiki:1"]["attempts"] == 2


def test_failures_are_recorded_not_raised_and_resumed(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("slow", times=3, seconds=1.5, question="barn owl")
    scripted.fail_next("malformed", question="dipper")
    scripted.fail_next("500", times=3, question="goldcrest")
    status = cli("evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                 "--timeout", "0.4", "--retries", "2", "--json")  # fmt: skip
    assert status == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["failed"] == 3 and summary["strict"] == len(ITEMS) - 3
    stored = {a["item_id"]: a for a in answers(llm_project, "gold")}
    assert "timed out" in stored["wiki:1"]["error"].lower()
    assert stored["wiki:2"]["error"] and stored["wiki:2"]["parse"] == "failed"
    assert "internal error" in stored["xc:2"]["error"]
    # The endpoint is healthy again: the failed items (and only they) are asked again.
    before = scripted.total()
    assert cli("evaluate", str(llm_project), "--model", "gold", "--timeout", "5") == 0
    assert scripted.total() - before == 1 + 3
    stored = {a["item_id"]: a for a in answers(llm_project, "gold")}
    assert all(a["parse"] == "strict" and a["error"] is None for a in stored.values())
    assert len(stored) == len(ITEMS)


def test_unreachable_endpoint_is_exit_2_and_writes_nothing(
    llm_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = ScriptedServer()
    url = closed.url
    closed.httpd.server_close()  # the port is free again: nothing listens there
    status = cli("evaluate", str(llm_project), "--model", "gold", "--base-url", url)
    assert status == 2
    assert "cannot reach" in capsys.readouterr().err
    with Store.open(llm_project, read_only=True) as store:
        assert store.llm.answer_count() == 0 and store.llm.profile_rows() == []


def test_completions_style_and_grammar_reach_the_server(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    status = cli("evaluate", str(llm_project), "--model", "always-B", "--base-url", scripted.url,
                 "--api-style", "completions", "--grammar", "--max-tokens", "2")  # fmt: skip
    assert status == 0
    assert scripted.requests["/v1/completions"] == len(ITEMS)
    body = scripted.bodies[0]
    assert body["grammar"] == "root ::= [ABCD]" and body["max_tokens"] == 2
    assert body["prompt"].endswith("Answer:")
    stored = answers(llm_project, "always-B")
    assert {a["letter"] for a in stored} == {"B"}
    assert sum(a["correct"] for a in stored) == 1  # only the dipper's gold is B


def test_seed_shows_the_release_order(llm_project: Path, scripted: ScriptedServer) -> None:
    with Store.open(llm_project) as store:
        for item_id, *_ in ITEMS:
            operations.decide(store, item_id, "ann", Decision.ACCEPT)
        plan = {r.item.id: list(r.order) for r in plan_export(store, 7).items}
    assert cli("evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
               "--seed", "7") == 0  # fmt: skip
    stored = answers(llm_project, "gold")
    assert {a["item_id"]: json.loads(a["option_order"]) for a in stored} == plan
    assert all(a["shown_seed"] == 7 and a["correct"] == 1 for a in stored)
    assert any(order != [0, 1, 2, 3] for order in plan.values())


def test_cancel_keeps_what_arrived(llm_project: Path, scripted: ScriptedServer) -> None:
    import threading

    cancel = threading.Event()
    profile = Profile("slow", "gold+delay=0.2", scripted.url, concurrency=1)
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        cancel.set()

    with Store.open(llm_project) as store:
        summary = evaluate(store, profile, questions(store), progress=progress, cancel=cancel,
                           policy=FAST)  # fmt: skip
        assert summary.cancelled and 1 <= summary.asked < len(ITEMS)
        assert store.llm.answer_count("slow") == summary.asked
        rest = evaluate(store, profile, questions(store), policy=FAST)
    assert rest.already == summary.asked and rest.asked == len(ITEMS) - summary.asked


def test_client_is_the_real_openai_client(scripted: ScriptedServer) -> None:
    client = LLMClient(Profile("gold", "always-D", scripted.url))
    try:
        assert type(client._client).__module__.startswith("openai")
        reply = client.ask(evaluation_prompt("x?", ["a", "b", "c", "d"]))
        assert (reply.text, reply.error, reply.attempts) == ("D", None, 1)
    finally:
        client.close()
