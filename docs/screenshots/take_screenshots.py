"""Takes the desk's screenshots for the README and for checking the layout by eye.

Run under a virtual screen from the repository root:

    xvfb-run -a -s "-screen 0 1920x1080x24" python docs/screenshots/take_screenshots.py OUT_DIR

Writes desk-WxH.png (a flagged Wikipedia item) and listening-WxH.png (a Xeno-canto item with its
spectrogram), plus listening-wide-WxH.png (the recording given the full width, key L), at
1280x800, 1600x1000 and 1920x1080, from the showcase project the tests build, with a private
PulseAudio null sink running (as in the tests) so that the player is ready; and audit-WxH.png,
the audit panel on a near-duplicate pair of the project with planted shortcuts the audit tests
build, at the size the desk gives it on each screen; rejects-WxH.png, Review → Rejected lines
after a folder import with bad lines (one file's lines open, one selected); export-audit-WxH.png,
the export dialog on that planted project, accepted whole after its audit, saying what the audit
found among the items the release takes; at 1280x800 and 1600x1000, listening-bird-WxH.png (a
duration item on the House Sparrow's clip whose gold the clip contradicts: scale bars, ratios),
listening-bat-WxH.png (a frequency item on the 375 kHz bat recording of resources/data/bats,
imported as a curator would) and listening-blind-WxH.png (the bird item in blind mode, before
the answer).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.prefs import Preferences  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from bagel_studio.ui.app import drain, make_qapp  # noqa: E402
from bagel_studio.ui.main_window import MainWindow  # noqa: E402
from bagel_studio.ui.services import Services  # noqa: E402
from tests.ui.desk_project import XC_ID, build_showcase_project  # noqa: E402

SIZES = ((1280, 800), (1600, 1000), (1920, 1080))
DATA = ROOT / "resources" / "data"


def settle(app: QApplication, window: MainWindow, ms: int = 1500) -> None:
    services = window.services
    for _ in range(ms // 20):
        app.processEvents()
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]
        if not (services.workers.pending or services.writer.pending) and _ > 20:
            break
    for _ in range(20):
        app.processEvents()
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]


def _desk(project: Path, ini: Path, width: int, height: int) -> tuple[MainWindow, Services]:
    """The desk on ``project`` as curator ana, its window settings in ``ini``, shown at
    ``width`` x ``height``."""
    store = Store.open(project, owner="ana")
    services = Services(store=store, prefs=Preferences(curator="ana"))
    window = MainWindow(services, settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(width, height)
    window.show()
    return window, services


def main(out: Path) -> None:
    app = make_qapp()
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bagel-shots-"))
    project = folder / "showcase.bagel"
    showcase = build_showcase_project(project, DATA)
    for width, height in SIZES:
        window, services = _desk(project, folder / f"desk-{width}.ini", width, height)
        window.show_item(showcase)
        settle(app, window)
        window.grab().save(str(out / f"desk-{width}x{height}.png"))
        window.show_item(XC_ID)
        settle(app, window, 6000)
        window.grab().save(str(out / f"listening-{width}x{height}.png"))
        wide = getattr(window, "toggle_listening_wide", None)
        if callable(wide):
            wide()
            settle(app, window, 1000)
            window.grab().save(str(out / f"listening-wide-{width}x{height}.png"))
        window.close()
        drain(services)
        services.close()
    take_listening(app, out, folder)
    take_audit(app, out, folder)
    take_rejects(app, out, folder)
    take_export_audit(app, out, folder)


def take_audit(app: QApplication, out: Path, folder: Path) -> None:
    from tests.core.audit.planted import planted_project

    project = planted_project(folder / "planted.bagel")
    for width, height in SIZES:
        window, services = _desk(project, folder / f"audit-{width}.ini", width, height)
        window.menus.open_panel("audit")
        panel = window.menus.panels["audit"]
        panel.resize(min(panel.width(), int(width * 0.9)), min(panel.height(), int(height * 0.9)))
        for _ in range(1500):  # the audit runs on the writer
            app.processEvents()
            QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]
            if panel.result is not None:
                break
        panel.select("duplicate")
        settle(app, window, 500)
        panel.grab().save(str(out / f"audit-{width}x{height}.png"))
        panel.close()
        window.close()
        drain(services)
        services.close()


BAD_LINES = [
    '{"id": "wikipedia:lion:3", "domain": "Wikipedia", "question": "How large is a pride of',
    '{"id": "wikipedia:lion:4", "domain": "Wikipedia", "dimension": "Behavior", "question": "Wh'
    'at do lions do at dusk?", "options": ["Hunt", "Sleep", "Roar", "Groom"], "answer": "A"} x',
    '{"id": "globi:ash:9", "question": "Which beetle bores into ash?", "options": ["Agrilus plan'
    'ipennis", "Hylesinus varius", "Apis mellifera", "Lucanus cervus"], "answer": "A"}',
    "plain words where a JSON line belongs",
]


def take_rejects(app: QApplication, out: Path, folder: Path) -> None:
    """Review → Rejected lines after a folder import: two files with bad lines, a metadata
    file passed over."""
    import json

    from bagel_studio.core.importers import import_paths
    from tests.ui.desk_project import build_project

    project = folder / "rejects.bagel"
    build_project(project, DATA)
    run = folder / "run-2026-03"
    run.mkdir()
    good = {
        "domain": "Wikipedia",
        "dimension": "Diet",
        "options": ["Meat", "Grass", "Fish", "Fruit"],
    }
    lines = [json.dumps({"id": "wikipedia:lion:2", "question": "What do lions eat?", **good})]
    (run / "lion_items.jsonl").write_text("\n".join([*lines, *BAD_LINES]) + "\n")
    broken = [f'{{"id": "xeno-canto:holdout:{n}", "domain": "Xeno-canto", "opt' for n in range(40)]
    (run / "holdout_xc.jsonl").write_text("\n".join(broken) + "\n")
    species = [{"species": f"Species {n}", "taxon_id": 1000 + n} for n in range(32)]
    (run / "species_list.json").write_text(json.dumps(species, indent=1))
    with Store.open(project, owner="ana") as store:
        import_paths(store, [run])
    for width, height in SIZES[:2]:
        window, services = _desk(project, folder / f"rejects-{width}.ini", width, height)
        window.menus.open_panel("rejects")
        view = window.menus.panels["rejects"]
        view.resize(min(view.width(), int(width * 0.9)), min(view.height(), int(height * 0.9)))
        mixed = view.model.index(1, 0)  # the file of lines rejected for several reasons
        view.tree.expand(mixed)
        view.tree.setCurrentIndex(view.model.index(1, 0, mixed))
        settle(app, window, 500)
        view.grab().save(str(out / f"rejects-{width}x{height}.png"))
        view.close()
        window.close()
        drain(services)
        services.close()


def take_export_audit(app: QApplication, out: Path, folder: Path) -> None:
    """The export dialog of the planted project, accepted whole after its audit."""
    from bagel_studio.core.audit import audit_flags, run_audit
    from bagel_studio.core.model import Decision
    from bagel_studio.core.operations.audit import store_audit_flags
    from bagel_studio.core.operations.decisions import decide_many
    from tests.core.audit.planted import planted_project

    project = planted_project(folder / "planted-export.bagel")
    with Store.open(project, owner="ana") as store:
        store_audit_flags(store, audit_flags(run_audit(store)))
        blocked = {item_id for item_id, flag in store.flags.all() if flag.severity == "blocking"}
        ids = [i for i in store.items.ids() if i not in blocked]
        decide_many(store, ids, "ana", Decision.ACCEPT)
    for width, height in SIZES[:2]:
        window, services = _desk(project, folder / f"export-{width}.ini", width, height)
        window.menus.export_dialog()
        dialog = window.menus.panels["export"]
        for _ in range(1500):  # the preview is planned on a worker
            app.processEvents()
            QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]
            if getattr(dialog, "plan", None) is not None:
                break
        dialog.resize(min(900, int(width * 0.9)), min(820, int(height * 0.9)))
        settle(app, window, 500)
        dialog.grab().save(str(out / f"export-audit-{width}x{height}.png"))
        dialog.close()
        window.close()
        drain(services)
        services.close()


BAT_ID = "xeno-canto:carollia-sowelli:0"
BIRD_ID = "xeno-canto:house-sparrow:1"
LISTENING_ITEMS = [
    {
        "id": BAT_ID, "domain": "Xeno-canto", "dimension": "Dominant frequency range",
        "level": "medium", "recording": "XC826198",
        "question": "What is the dominant frequency range of the echolocation calls of Sowell's"
        " short-tailed bat (Carollia sowelli)?",
        "options": ["~60-110 kHz", "~20-30 kHz", "~5-10 kHz", "~130-160 kHz"], "answer": "A",
    },
    {
        "id": BIRD_ID, "domain": "Xeno-canto", "dimension": "Call / syllable duration",
        "level": "easy", "recording": "XC625750",
        "question": "What is the typical duration of a single call of the House Sparrow?",
        "options": ["80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s"], "answer": "C",
    },
]  # fmt: skip


def take_listening(app: QApplication, out: Path, folder: Path) -> None:
    """The listening panel on a bird and a bat item, and blind mode, at 1280x800 and 1600x1000:
    the showcase project with the bat's folder (its Xeno-canto table and WAV) and two items
    imported into it."""
    import json

    from bagel_studio.core.importers import import_paths

    project = folder / "listening.bagel"
    build_showcase_project(project, DATA)
    items = folder / "listening_items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in LISTENING_ITEMS))
    with Store.open(project, owner="ana") as store:
        import_paths(store, [DATA / "bats", items])
    shots = (("bird", BIRD_ID, False), ("bat", BAT_ID, False), ("blind", BIRD_ID, True))
    for width, height in SIZES[:2]:
        for name, item_id, blind in shots:
            window, services = _desk(project, folder / f"listening-{width}.ini", width, height)
            services.prefs.blind_mode = blind
            window.show_item(item_id)
            _listened(app, window)
            window.grab().save(str(out / f"listening-{name}-{width}x{height}.png"))
            window.close()
            drain(services)
            services.close()


def _listened(app: QApplication, window: MainWindow, seconds: float = 90.0) -> None:
    """Wait until the item's clip is drawn and measured and BirdNET has said its line."""
    import time

    start = time.monotonic()
    while time.monotonic() - start < seconds:
        app.processEvents()
        panel = window.evidence.listening
        ready = panel is not None and panel.clip is not None and bool(panel.measurements.rows)
        if ready and panel and "listening for" not in panel.species.verdict.text():
            break
        QApplication.instance().thread().msleep(20)  # type: ignore[union-attr]
    settle(app, window, 1500)


if __name__ == "__main__":
    from tests.support.pulse import running_null_sink  # a private sound server: the player works

    with running_null_sink():
        main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
