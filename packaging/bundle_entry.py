"""The bundled executable's entry point (PyInstaller runs this file as ``__main__``).

``bagel-studio --bundle-check [CLIP]`` is the bundle's own self-test (run by packaging/smoke.sh):
it loads every native part the bundle must carry (Qt, pyqtgraph, libsndfile, PortAudio, numba's
LLVM, librosa), decodes and analyses a clip with librosa, and says where each library came from.
Exit 1 when a part is missing or was loaded from outside the bundle.
"""

import multiprocessing
import os
import sys

from bagel_studio.__main__ import main


def bundle_check(clip):
    import librosa
    import numba
    import numpy as np
    import pyqtgraph
    import PySide6
    import sounddevice
    import soundfile

    inside = os.path.realpath(sys._MEIPASS)

    def bundled(path):
        return os.path.realpath(path).startswith(inside + os.sep)

    problems = []

    @numba.njit
    def energy(samples):
        total = 0.0
        for value in samples:
            total += value * value
        return total

    samples, rate = librosa.load(clip, sr=16000, duration=5.0)
    onsets = librosa.onset.onset_detect(y=samples, sr=rate, units="time")
    if not np.isclose(energy(samples), float(np.sum(samples.astype(np.float64) ** 2)), rtol=1e-4):
        problems.append("numba computed a wrong sum")
    print(f"PortAudio: {sounddevice.get_portaudio_version()[1]}")
    print(f"libsndfile: {soundfile.__libsndfile_version__}")
    with open("/proc/self/maps", encoding="utf-8") as maps:
        loaded = {line.split()[-1] for line in maps if "/" in line}
    for name in ("libportaudio", "libsndfile", "libllvmlite", "libQt6Core"):
        # The system's own audio plugins (ALSA -> PulseAudio) may load the system's libsndfile
        # beside ours; what matters is that ours is loaded.
        paths = sorted(p for p in loaded if os.path.basename(p).startswith(name))
        for path in paths:
            print(f"  {name}: {path}{'' if bundled(path) else ' (the system copy)'}")
        if not any(bundled(path) for path in paths):
            problems.append(f"{name} was not loaded from the bundle: {paths}")
    print(f"PySide6 {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}")
    print(f"librosa {librosa.__version__}, numba {numba.__version__}")
    print(f"clip: {len(samples) / rate:.2f} s at {rate} Hz, {len(onsets)} onsets (librosa)")
    for problem in problems:
        print(f"bundle check: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    # The process pools of `analyze` start children by running this same executable.
    multiprocessing.freeze_support()
    if sys.argv[1:2] == ["--bundle-check"] and len(sys.argv) == 3:
        sys.exit(bundle_check(sys.argv[2]))
    sys.exit(main())
