"""The listening panel of the desk: a Xeno-canto clip's spectrogram with playhead, the item's
option claims drawn over it, a measuring box, the player and the clip's measurements.

The desk embeds ``ListeningPanel`` and maps Space to ``toggle_play`` and the arrows to
``seek_relative``; see ``panel.py``. The panel (pyqtgraph) is imported on first use of the name,
not with the package: the desk prepares the recordings it shows next (``loader.py``, ``ahead.py``,
no pyqtgraph) from its first item on, while the panel itself is still being built in idle steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bagel_studio.ui.listening.panel import ListeningPanel

__all__ = ["ListeningPanel"]


def __getattr__(name: str) -> object:
    if name == "ListeningPanel":
        from bagel_studio.ui.listening.panel import ListeningPanel

        return ListeningPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
