"""Takes the Models panel's screenshot for checking its layout by eye, on the screen it runs on.

Run under a virtual screen of the size to check, from the repository root:

    xvfb-run -a -s "-screen 0 1280x800x24" python docs/screenshots/take_models_panel.py OUT_DIR

Writes models-panel-WxH.png (W x H: the screen's size): two models on the tests' scripted
OpenAI-compatible server, one whose replies hold no letter (the panel's note says what that does
to its accuracy), and the status of a run the server refused, which stopped; that profile gives
its context window (the others leave it to be detected).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.cli import run  # noqa: E402
from bagel_studio.core.prefs import Preferences  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from bagel_studio.ui.app import drain, make_qapp  # noqa: E402
from bagel_studio.ui.main_window import MainWindow  # noqa: E402
from bagel_studio.ui.services import Services  # noqa: E402
from tests.core.llm.conftest import gold_map, new_items  # noqa: E402
from tests.support.llm_server import ScriptedServer  # noqa: E402


def wait(app: QApplication, until: object, ms: int = 30_000) -> None:
    for _ in range(ms // 20):
        app.processEvents()
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]
        if callable(until) and until():
            break
    for _ in range(10):
        app.processEvents()
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]


def main(out: Path) -> None:
    app = make_qapp()
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bagel-shots-"))
    project = folder / "models.bagel"
    with Store.open(project, owner="ana") as store:
        store.items.add_items(new_items(), None)
    with ScriptedServer(gold_map()) as server:
        for model in ("rambling", "gold"):
            run(["evaluate", str(project), "--model", model, "--base-url", server.url])
        store = Store.open(project, owner="ana")
        services = Services(store=store, prefs=Preferences(curator="ana"))
        settings = QSettings(str(folder / "desk.ini"), QSettings.Format.IniFormat)
        window = MainWindow(services, settings=settings)
        screen = QGuiApplication.primaryScreen().size()
        window.resize(screen)
        window.show()
        window.menus.open_panel("models")
        panel = window.menus.panels["models"]
        server.fail_next("404", times=len(new_items()))
        panel.label.setText("refused")
        panel.base_url.setText(server.url)
        panel.model.setText("always-B")
        panel.context_tokens.setText("8192")  # a server that does not say its window
        panel.save_profile()
        wait(app, lambda: panel.profiles.rowCount() == 3)
        row = next(r for r in range(3) if panel.profiles.item(r, 0).text() == "refused")
        panel.profiles.selectRow(row)
        panel.run_evaluation()
        wait(app, panel.run_button.isEnabled)
        panel.grab().save(str(out / f"models-panel-{screen.width()}x{screen.height()}.png"))
        panel.close()
        window.close()
        drain(services)
        services.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
