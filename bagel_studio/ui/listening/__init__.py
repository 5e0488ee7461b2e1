"""The listening panel of the desk: a Xeno-canto clip's spectrogram with playhead, the item's
option claims drawn over it, a measuring box, the player and the clip's measurements.

The desk embeds ``ListeningPanel`` and maps Space to ``toggle_play`` and the arrows to
``seek_relative``; see ``panel.py``.
"""

from bagel_studio.ui.listening.panel import ListeningPanel

__all__ = ["ListeningPanel"]
