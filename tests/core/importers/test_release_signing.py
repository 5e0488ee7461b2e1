"""Who made a release (issue 26): ``export --sign KEY`` signs its manifest with an SSH key made by
``ssh-keygen`` here, ``verify`` says who signed it and checks an allowed-signers file, and a
release must carry its manifest to be imported."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.core.export.export_support import decide_all, new_project, paper_items

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")


def _key(folder: Path, name: str, principal: str) -> tuple[Path, Path]:
    """A new Ed25519 key without a passphrase, and an allowed-signers file naming it."""
    key = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", str(key)],
        check=True,
    )
    allowed = folder / f"{name}.allowed"
    public = (folder / f"{name}.pub").read_text(encoding="utf-8").strip()
    allowed.write_text(f"{principal} {public}\n", encoding="utf-8")
    return key, allowed


@pytest.fixture
def project(tmp_path: Path, data_dir: Path) -> Path:
    path = tmp_path / "paper.bagel"
    with new_project(path, paper_items(data_dir)) as store:
        decide_all(store, store.items.ids())
    return path


def _export(project: Path, out: Path, *extra: str) -> None:
    assert run(["export", str(project), str(out), "--seed", "7", *extra]) == 0


def _forge_curator(release: Path) -> None:
    """Change a curator's name in provenance.jsonl, and its hash in the manifest to match."""
    provenance = release / "provenance.jsonl"
    text = provenance.read_text(encoding="utf-8")
    assert '"curator": "ada"' in text
    provenance.write_text(text.replace('"curator": "ada"', '"curator": "eve"'), encoding="utf-8")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    data = provenance.read_bytes()
    manifest["files"]["provenance.jsonl"] = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }
    (release / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def test_a_signed_release_says_who_signed_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, allowed = _key(tmp_path, "alice", "alice@example.org")
    release = tmp_path / "release"
    _export(project, release, "--sign", str(key))
    assert (release / "manifest.json.sig").read_text().startswith("-----BEGIN SSH SIGNATURE")
    capsys.readouterr()
    assert run(["verify", str(release), "--allowed-signers", str(allowed)]) == 0
    out = capsys.readouterr().out
    assert "intact" in out and "signed by alice@example.org" in out
    assert run(["verify", str(release)]) == 0
    assert "signed with ED25519 key SHA256:" in capsys.readouterr().out
    assert run(["verify", str(release), "--json", "--allowed-signers", str(allowed)]) == 0
    assert json.loads(capsys.readouterr().out)["signed_by"] == "alice@example.org"


def test_a_forged_curator_fails_verify_only_when_the_release_is_signed(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, allowed = _key(tmp_path, "alice", "alice@example.org")
    unsigned, signed = tmp_path / "unsigned", tmp_path / "signed"
    _export(project, unsigned)
    _export(project, signed, "--sign", str(key))
    _forge_curator(unsigned)
    _forge_curator(signed)
    capsys.readouterr()
    assert run(["verify", str(unsigned)]) == 0  # nothing there can tell
    assert "not signed" in capsys.readouterr().out
    assert run(["verify", str(signed)]) == 1
    assert "does not match manifest.json" in capsys.readouterr().out
    # nor does an unsigned one pass where a signer is required
    assert run(["verify", str(unsigned), "--allowed-signers", str(allowed)]) == 1
    assert "not signed" in capsys.readouterr().out


def test_a_key_the_allowed_signers_do_not_list_fails(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mallory, _ = _key(tmp_path, "mallory", "mallory@example.org")
    _, allowed = _key(tmp_path, "alice", "alice@example.org")
    release = tmp_path / "release"
    _export(project, release, "--sign", str(mallory))
    capsys.readouterr()
    assert run(["verify", str(release), "--allowed-signers", str(allowed)]) == 1
    assert "does not list" in capsys.readouterr().out


def test_a_signed_release_imports_and_its_signature_is_no_stray_file(
    project: Path, tmp_path: Path
) -> None:
    key, _ = _key(tmp_path, "alice", "alice@example.org")
    release = tmp_path / "release"
    _export(project, release, "--sign", str(key))
    again = tmp_path / "again.bagel"
    assert run(["import", str(again), str(release)]) in (0, 1)
    with Store.open(again, read_only=True) as store:
        assert store.items.count() > 0


def test_signing_with_a_missing_key_writes_nothing(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = tmp_path / "release"
    assert (
        run(
            ["export", str(project), str(release), "--seed", "1", "--sign", str(tmp_path / "nokey")]
        )
        == 2
    )
    assert "no such key file" in capsys.readouterr().err
    assert not release.exists()


def test_a_release_without_its_manifest_is_not_imported(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = tmp_path / "release"
    _export(project, release)
    (release / "manifest.json").unlink()
    target = tmp_path / "again.bagel"
    capsys.readouterr()
    assert run(["import", str(target), str(release)]) == 2
    said = "".join(capsys.readouterr())
    assert "without its manifest.json" in said and "--no-verify" in said
    assert run(["import", str(target), str(release / "data" / "all.jsonl")]) == 2
    with Store.open(target, read_only=True) as store:
        assert store.items.count() == 0
    capsys.readouterr()
    assert run(["import", str(target), str(release), "--no-verify"]) in (0, 1)
    with Store.open(target, read_only=True) as store:
        assert store.items.count() > 0
