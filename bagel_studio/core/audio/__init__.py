"""Audio for the listening desk and the Xeno-canto checks (Qt-free).

``decode.decode`` reads any file libsndfile reads; ``measure`` runs the paper's pipeline;
``parse_claim`` and ``acoustic_flags`` compare option text with the measurement;
``compute_spectrogram`` and ``SpectrogramCache`` feed the spectrogram view; ``Player`` plays a
clip through sounddevice with a playhead on the stream's clock. librosa and sounddevice are never
imported here: the player imports sounddevice when first used.

The names below are imported from their modules when first asked for (the module
``__getattr__`` of PEP 562, as ``core.operations`` does), so that importing one light module of
the package (``audio.limits``) does not bring in numpy and the decoders: ``bagel-studio check``
of a project without recordings never loads them. The decoding function is not among them:
``audio.decode`` is its module (importing that module sets the package's attribute to it), so it
is imported as ``from bagel_studio.core.audio.decode import decode``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.lazy import package_names

if TYPE_CHECKING:
    from bagel_studio.core.audio.analysis import ANALYSIS_VERSION as ANALYSIS_VERSION
    from bagel_studio.core.audio.analysis import Measurement as Measurement
    from bagel_studio.core.audio.analysis import measure as measure
    from bagel_studio.core.audio.claims import CHECKS as CHECKS
    from bagel_studio.core.audio.claims import Claim as Claim
    from bagel_studio.core.audio.claims import acoustic_flags as acoustic_flags
    from bagel_studio.core.audio.claims import parse_claim as parse_claim
    from bagel_studio.core.audio.decode import AudioError as AudioError
    from bagel_studio.core.audio.decode import DecodedAudio as DecodedAudio
    from bagel_studio.core.audio.player import Player as Player
    from bagel_studio.core.audio.player import PlayerUnavailable as PlayerUnavailable
    from bagel_studio.core.audio.project import measure_recordings as measure_recordings
    from bagel_studio.core.audio.project import measurement_error as measurement_error
    from bagel_studio.core.audio.project import measurement_for as measurement_for
    from bagel_studio.core.audio.project import resolve_audio_path as resolve_audio_path
    from bagel_studio.core.audio.spectrogram import Spectrogram as Spectrogram
    from bagel_studio.core.audio.spectrogram import SpectrogramCache as SpectrogramCache
    from bagel_studio.core.audio.spectrogram import SpectrogramSettings as SpectrogramSettings
    from bagel_studio.core.audio.spectrogram import compute_spectrogram as compute_spectrogram
    from bagel_studio.core.audio.spectrogram import load_settings as load_settings
    from bagel_studio.core.audio.spectrogram import save_settings as save_settings

# name -> the module of this package that defines it
_HOMES = {
    "ANALYSIS_VERSION": "analysis",
    "CHECKS": "claims",
    "AudioError": "decode",
    "Claim": "claims",
    "DecodedAudio": "decode",
    "Measurement": "analysis",
    "Player": "player",
    "PlayerUnavailable": "player",
    "Spectrogram": "spectrogram",
    "SpectrogramCache": "spectrogram",
    "SpectrogramSettings": "spectrogram",
    "acoustic_flags": "claims",
    "compute_spectrogram": "spectrogram",
    "load_settings": "spectrogram",
    "measure": "analysis",
    "measure_recordings": "project",
    "measurement_error": "project",
    "measurement_for": "project",
    "parse_claim": "claims",
    "resolve_audio_path": "project",
    "save_settings": "spectrogram",
}

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
    "load_settings",
    "measure",
    "measure_recordings",
    "measurement_error",
    "measurement_for",
    "parse_claim",
    "resolve_audio_path",
    "save_settings",
]


__getattr__ = package_names(__name__, _HOMES, globals())
