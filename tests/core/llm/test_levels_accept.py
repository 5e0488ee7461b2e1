"""A level set from two models' answers (``levels --apply``) is not the curator's content: an
accept afterwards records an accept, not a revision (657 of 1,500 accepts became "revised"), on
the command line, one by one, in the desk's path and by the adjudicator; an edit of anything but
the level still makes the accept a revision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer


def test_an_accept_after_levels_apply_is_an_accept(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    for model in ("gold", "always-A"):
        assert run(["evaluate", str(llm_project), "--model", model, "--base-url",
                    scripted.url]) == 0  # fmt: skip
    assert run(["levels", str(llm_project), "--models", "gold", "always-A", "--apply"]) == 0
    with Store.open(llm_project) as store:
        assert all(store.items.get(item[0]).content.level for item in ITEMS)
        item = store.items.get("bio:1")
        operations.edit(store, "bio:1", "ann", item.content.with_changes(question="Edited?"))
    ids = [item[0] for item in ITEMS]
    accepted = [i for i in ids if i not in ("bio:1", "xc:1", "xc:2")]
    capsys.readouterr()
    assert run(["decide", str(llm_project), *accepted, "--curator", "ann", "--accept"]) == 0
    assert run(["decide", str(llm_project), "bio:1", "--curator", "ann", "--accept"]) == 0
    with Store.open(llm_project) as store:
        operations.decide(store, "xc:1", "ann", Decision.ACCEPT)  # one by one, as the desk
        done = operations.adjudicate(store, "xc:2", "eve", Decision.ACCEPT)
        assert done.result is Decision.ACCEPT
        decisions = {r.item_id: r.decision for r in store.reviews.all() if r.curator == "ann"}
        assert store.items.get("wiki:1").status.value == "accepted"
    plain = [*accepted, "xc:1"]
    assert {i: decisions[i] for i in plain} == dict.fromkeys(plain, Decision.ACCEPT)
    assert decisions["bio:1"] is Decision.REVISE  # an edited question is the curator's content
    capsys.readouterr()
    assert run(["stats", str(llm_project), "--json"]) == 0
    by_status = json.loads(capsys.readouterr().out)["by_status"]
    assert by_status.get("revised") == 1, by_status
