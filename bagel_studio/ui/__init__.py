"""The desktop desk (PySide6, pyqtgraph): thin views over ``bagel_studio.core``.

The Qt-free core the desk needs is imported here, before any module of the desk imports PySide6:
once PySide6 is loaded its import hook (the ``__feature__`` machinery) reads the whole source of
every module imported after it, to see whether it uses PySide. For the core with numpy,
sqlite-utils and rapidfuzz, some 270 modules, that cost the desk's cold start about 0.1 s.
"""

import bagel_studio.core.changes
import bagel_studio.core.llm.desk
import bagel_studio.core.operations
import bagel_studio.core.prefs
import bagel_studio.core.resources
import bagel_studio.core.store  # noqa: F401
