"""The spectrogram's analysis windows without scipy.signal: importing it costs one to three
seconds the first time, and the first recording of a session waited for it before it could be
drawn. The common windows are numpy's, equal to scipy's periodic ones."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from scipy import signal

from bagel_studio.core.audio.dsp import window_samples


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "boxcar"])
@pytest.mark.parametrize("size", [16, 1024, 4096])
def test_numpy_windows_equal_scipys(name: str, size: int) -> None:
    expected = signal.get_window(name, size, fftbins=True)
    assert window_samples(name, size) == pytest.approx(expected, abs=1e-6)


def test_other_windows_still_come_from_scipy() -> None:
    expected = signal.get_window("blackmanharris", 512, fftbins=True)
    assert window_samples("blackmanharris", 512) == pytest.approx(expected, abs=1e-6)
    with pytest.raises(ValueError):
        window_samples("no-such-window", 512)


def test_drawing_a_clip_with_the_usual_settings_does_not_import_scipy_signal(data_dir) -> None:
    clip = data_dir / "xeno_canto" / "XC625750.mp3"
    script = textwrap.dedent(f"""
        import sys
        from bagel_studio.core.audio import SpectrogramCache, SpectrogramSettings
        from bagel_studio.core.audio.decode import decode
        for window in ("hann", "hamming", "blackman"):
            settings = SpectrogramSettings.from_json({{"window": window, "scale": "log"}})
            assert settings.window == window
            SpectrogramCache().get(decode({str(clip)!r}), settings)
        assert "scipy.signal" not in sys.modules, "scipy.signal imported"
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
