"""Takes the review team's screenshots for checking their layout by eye, on the screen it runs on.

Run under a virtual screen of the size to check, from the repository root:

    xvfb-run -a -s "-screen 0 1280x800x24" python docs/screenshots/take_team.py OUT_DIR

Builds the showcase project the tests build with 400 plain items more, plans a review for alice,
bob and carol (2 per item, 3 per risky item, a 5% calibration share), hands out their packages
and has each decide a share of their items there (bob and carol reject what alice accepts on
some shared items). Writes team-package-WxH.png: the desk on bob's package, opened as bob
(the preferences name someone else), the queue his items in the plan's order; and
team-view-WxH.png: the project after the packages were collected, its Team view open on the
items waiting for a further look. W x H: the screen's size.
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

from bagel_studio.core import operations  # noqa: E402
from bagel_studio.core.assignment import PlanSettings  # noqa: E402
from bagel_studio.core.model import Decision  # noqa: E402
from bagel_studio.core.operations.handout import hand_out  # noqa: E402
from bagel_studio.core.operations.team import make_plan  # noqa: E402
from bagel_studio.core.prefs import Preferences  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from bagel_studio.core.team.collect import collect_packages  # noqa: E402
from bagel_studio.ui.app import drain, make_qapp  # noqa: E402
from bagel_studio.ui.main_window import MainWindow  # noqa: E402
from bagel_studio.ui.services import Services  # noqa: E402
from tests.ui.desk_project import build_showcase_project, synthetic_items  # noqa: E402

DATA = ROOT / "resources" / "data"
TEAM = ("alice", "bob", "carol")


def wait(app: QApplication, ms: int = 1500) -> None:
    for _ in range(ms // 20):
        app.processEvents()
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]


def build(folder: Path) -> tuple[Path, dict[str, Path]]:
    """The project, its plan, and each curator's package with some decisions made in it."""
    project = folder / "study.bagel"
    build_showcase_project(project, DATA)
    with Store.open(project) as store:
        store.items.add_items(synthetic_items(400), None)
        plan = make_plan(store, PlanSettings(TEAM, 2, 3, 0.05, 7)).result
        hand_out(store, folder / "packages")
        given = {c: store.team.assignments(plan.plan_id, c) for c in TEAM}
    packages = {c: folder / "packages" / c / f"study-{c}.bagel" for c in TEAM}
    alice_first = {a.item_id for a in given["alice"]}
    share = {"alice": 60, "bob": 12, "carol": 45}
    for curator, path in packages.items():
        with Store.open(path) as package:
            mine = [a.item_id for a in sorted(given[curator], key=lambda a: a.position)]
            for n, item_id in enumerate(mine[: share[curator]]):
                if curator != "alice" and item_id in alice_first and n % 4 == 1:
                    operations.decide(package, item_id, curator, Decision.REJECT, reason="trivial")
                elif n % 9 == 5:
                    operations.decide(package, item_id, curator, Decision.UNCERTAIN)
                else:
                    operations.decide(package, item_id, curator, Decision.ACCEPT)
    return project, packages


def desk(path: Path, ini: Path, curator: str) -> tuple[MainWindow, Services]:
    store = Store.open(path, owner=curator)
    services = Services(store=store, prefs=Preferences(curator=curator))
    window = MainWindow(services, settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(QGuiApplication.primaryScreen().size())
    window.show()
    return window, services


def main(out: Path) -> None:
    app = make_qapp()
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bagel-shots-"))
    project, packages = build(folder)
    screen = QGuiApplication.primaryScreen().size()
    size = f"{screen.width()}x{screen.height()}"
    window, services = desk(packages["bob"], folder / "package.ini", "ana")
    first = window.queue_model.ids()[12]
    window.show_item(first)
    wait(app, 2500)
    window.grab().save(str(out / f"team-package-{size}.png"))
    window.close()
    drain(services)
    services.close()
    with Store.open(project) as store:
        collect_packages(store, list(packages.values()))
    window, services = desk(project, folder / "project.ini", "ana")
    wait(app)
    window.menus.open_panel("team")
    panel = window.menus.panels["team"]
    panel.shown.setCurrentIndex(panel.shown.findData("waiting"))
    wait(app)
    panel.grab().save(str(out / f"team-view-{size}.png"))
    panel.close()
    window.close()
    drain(services)
    services.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
