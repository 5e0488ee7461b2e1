"""Who made a release: its manifest signed with an SSH key, as git signs commits.

``export --sign KEY`` signs ``manifest.json`` with ``ssh-keygen -Y sign`` under the namespace
``bagel-release`` (a signature made for git or for a file cannot be passed off as one of a
release) and writes the signature beside it, ``manifest.json.sig``. The manifest holds the SHA-256
of every other file, so the signature covers the whole release: a curator's name changed in
``provenance.jsonl``, with its hash changed in the manifest to match, no longer verifies.

``verify`` checks the signature with the key it carries and says which key that is; with an
allowed-signers file (OpenSSH's format, the one git's ``gpg.ssh.allowedSignersFile`` uses: a
principal such as an e-mail address, then a public key, a line each) it says who signed, and a
release signed by a key the file does not list, or not signed at all, fails. OpenSSH's
``ssh-keygen`` does the cryptography (Debian: openssh-client).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bagel_studio.core.report.layout import SIGNATURE

NAMESPACE = "bagel-release"  # ssh-keygen -Y's namespace of a release's signature
TIMEOUT_S = 60  # a key with a passphrase asks on the terminal


class SigningError(RuntimeError):
    """ssh-keygen is missing, or refused to sign (no such key, a wrong passphrase)."""


@dataclass(frozen=True)
class Signature:
    """What a release's signature says: ``good`` when it matches the manifest (and, when an
    allowed-signers file was given, a key it lists made it), the key, and who holds it."""

    present: bool
    good: bool
    key: str = ""  # "ED25519 key SHA256:..."
    signer: str = ""  # the principal of the allowed-signers file, when one was given
    problem: str = ""  # why not good, for the curator

    def describe(self) -> str:
        if not self.present:
            return "not signed"
        if not self.good:
            return self.problem
        if self.signer:
            return f"signed by {self.signer} ({self.key})"
        return f"signed with {self.key} (whose key that is: verify with --allowed-signers FILE)"


def ssh_keygen() -> str:
    """The path of ssh-keygen; a SigningError saying how to get it when it is not installed."""
    found = shutil.which("ssh-keygen")
    if found is None:
        raise SigningError(
            "ssh-keygen (OpenSSH) is needed to sign and check release signatures; install it"
            " (Debian: apt-get install openssh-client)"
        )
    return found


def sign_manifest(manifest: bytes, key: Path) -> bytes:
    """The signature of ``manifest`` with the SSH key ``key`` (a private key, or a public one
    whose private half an ssh-agent holds)."""
    if not key.is_file():
        raise SigningError(f"{key}: no such key file")
    done = _run([ssh_keygen(), "-Y", "sign", "-f", str(key), "-n", NAMESPACE], manifest)
    if done.returncode != 0 or not done.stdout.startswith(b"-----BEGIN SSH SIGNATURE-----"):
        raise SigningError(f"ssh-keygen could not sign with {key}: {_said(done)}")
    return done.stdout


def check_signature(folder: Path, allowed_signers: Path | None = None) -> Signature:
    """The signature of ``folder``'s manifest, checked (see the module)."""
    signature = folder / SIGNATURE
    manifest = folder / "manifest.json"
    if not signature.is_file():
        if allowed_signers is not None:
            return Signature(
                False, False, problem="not signed, and --allowed-signers asks for a signer"
            )
        return Signature(False, True)
    data = manifest.read_bytes()
    tool = ssh_keygen()
    checked = _run([tool, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(signature)], data)
    key = _key(checked)
    if checked.returncode != 0 or not key:
        return Signature(
            True,
            False,
            problem=f"{SIGNATURE} does not match manifest.json (changed after it was signed,"
            f" or not a signature of a release): {_said(checked)}",
        )
    if allowed_signers is None:
        return Signature(True, True, key)
    if not allowed_signers.is_file():
        raise SigningError(f"{allowed_signers}: no such allowed-signers file")
    found = _run(
        [tool, "-Y", "find-principals", "-s", str(signature), "-f", str(allowed_signers)], b""
    )
    principals = found.stdout.decode("utf-8", "replace").split()
    if found.returncode != 0 or not principals:
        return Signature(
            True,
            False,
            key,
            problem=f"signed with {key}, which {allowed_signers.name} does not list",
        )
    verified = _run(
        [
            tool, "-Y", "verify", "-f", str(allowed_signers), "-I", principals[0],
            "-n", NAMESPACE, "-s", str(signature),
        ],
        data,
    )  # fmt: skip
    if verified.returncode != 0:
        return Signature(
            True, False, key, problem=f"signed with {key}, not allowed: {_said(verified)}"
        )
    return Signature(True, True, key, principals[0])


def _run(command: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(command, input=data, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise SigningError(f"ssh-keygen did not answer in {TIMEOUT_S} s") from exc


def _key(done: subprocess.CompletedProcess[bytes]) -> str:
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    match = re.search(r"with (\S+ key \S+)", said)
    return match.group(1) if match else ""


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    lines = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"
