"""What the audit leaves out, and says it leaves out: on the demo project two of its 58 items
(three options; a gold that is no option) have no gold position or option lengths to measure, and
a rejected item never reaches a release. The command's summary, its JSON and the report's own
sentence (which the desk's audit panel shows) name them and say why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.audit import run_audit
from bagel_studio.core.cli import run
from bagel_studio.core.store import Store

UNSOUND = ("demo:three-options", "demo:gold-not-an-option")


def test_the_demo_audit_says_which_two_items_it_leaves_out_and_why(
    demo_template: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(demo_template, read_only=True) as store:
        total = len(store.items.ids())
        report = run_audit(store)
    assert total == 58 and report.items == 56
    assert report.left_out.rejected == 0 and set(report.left_out.unsound) == set(UNSOUND)
    sentence = report.coverage()
    assert sentence.startswith("56 of 58 items audited: 2 items without four options and a gold")
    assert "left out until fixed" in sentence and all(i in sentence for i in UNSOUND)
    assert run(["audit", str(demo_template), "--no-flags"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == sentence
    assert run(["audit", str(demo_template), "--no-flags", "--json"]) == 0
    left_out = json.loads(capsys.readouterr().out)["left_out"]
    assert left_out["rejected"] == 0 and set(left_out["unsound"]) == set(UNSOUND)


def test_a_rejected_item_is_counted_as_left_out(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rejected = ["demo:three-options", "wikipedia:koala:1"]
    decide = ["decide", str(demo_copy), *rejected, "--curator", "ana", "--reject", "trivial"]
    assert run(decide) == 0
    capsys.readouterr()
    with Store.open(demo_copy, read_only=True) as store:
        report = run_audit(store)
    assert report.items == 55
    assert report.left_out.rejected == 2 and report.left_out.unsound == ("demo:gold-not-an-option",)
    assert report.coverage() == (
        "55 of 58 items audited: 2 rejected items are left out; 1 item without four options"
        " and a gold among them is left out until fixed (demo:gold-not-an-option)"
    )


def test_nothing_left_out_says_only_the_count(tmp_path: Path) -> None:
    with Store.open(tmp_path / "empty.bagel") as store:
        assert run_audit(store).coverage() == "0 items audited"
