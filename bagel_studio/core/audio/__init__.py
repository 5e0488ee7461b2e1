"""Audio for the listening desk and the Xeno-canto checks (Qt-free).

``decode`` reads any file libsndfile reads; ``measure`` runs the paper's pipeline;
``parse_claim`` and ``acoustic_flags`` compare option text with the measurement;
``compute_spectrogram`` and ``SpectrogramCache`` feed the spectrogram view; ``Player`` plays a
clip through sounddevice with a playhead on the stream's clock. librosa and sounddevice are never
imported here: the player imports sounddevice when first used.
"""

from bagel_studio.core.audio.analysis import ANALYSIS_VERSION, Measurement, measure
from bagel_studio.core.audio.claims import CHECKS, Claim, acoustic_flags, parse_claim
from bagel_studio.core.audio.decode import AudioError, DecodedAudio, decode
from bagel_studio.core.audio.player import Player, PlayerUnavailable
from bagel_studio.core.audio.project import (
    measure_recordings,
    measurement_error,
    measurement_for,
    resolve_audio_path,
)
from bagel_studio.core.audio.spectrogram import (
    Spectrogram,
    SpectrogramCache,
    SpectrogramSettings,
    compute_spectrogram,
    load_settings,
    save_settings,
)

__all__ = [
    "ANALYSIS_VERSION",
    "CHECKS",
    "AudioError",
    "Claim",
    "DecodedAudio",
    "Measurement",
    "Player",
    "PlayerUnavailable",
    "Spectrogram",
    "SpectrogramCache",
    "SpectrogramSettings",
    "acoustic_flags",
    "compute_spectrogram",
    "decode",
    "load_settings",
    "measure",
    "measure_recordings",
    "measurement_error",
    "measurement_for",
    "parse_claim",
    "resolve_audio_path",
    "save_settings",
]
