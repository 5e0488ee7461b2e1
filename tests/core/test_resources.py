"""The resources as package data: found inside the installed package, never in the source tree;
and the desktop entry, AppStream metainfo and icon that the wheel and the bundle ship."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import bagel_studio
from bagel_studio.core.resources import APP_ID, RESOURCES, icon_path

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "resources" / "desktop"

INSTALLED_PROBE = """
import json, sys
import bagel_studio
from bagel_studio.core.demo import build_demo_project, demo_sources
from bagel_studio.core.resources import RESOURCES
from bagel_studio.core.store import Store

path = build_demo_project(__import__("pathlib").Path(sys.argv[1]))
with Store.open(path, read_only=True) as store:
    audio = [r["audio_path"] for r in store.evidence.recordings()]
    items = store.items.count()
print(json.dumps({"package": bagel_studio.__file__, "resources": str(RESOURCES),
                  "sources": [str(p) for p in demo_sources()], "audio": audio, "items": items}))
"""


def test_a_source_checkout_reads_the_top_level_folder() -> None:
    assert RESOURCES == ROOT / "resources"
    assert (RESOURCES / "data" / "README.md").is_file()


def installed_copy(site: Path) -> Path:
    """The layout the wheel installs: the package, with resources/ inside it as package data."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "bagel_studio", site / "bagel_studio", ignore=ignore)
    shutil.copytree(ROOT / "resources", site / "bagel_studio" / "resources", ignore=ignore)
    return site / "bagel_studio"


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )


def test_an_installed_package_reads_only_its_own_resources(tmp_path: Path) -> None:
    site = tmp_path / "site"
    package = installed_copy(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_installed(site, elsewhere, "-c", INSTALLED_PROBE, str(tmp_path / "demo.bagel"))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).parent == package
    assert Path(found["resources"]) == package / "resources"
    assert found["sources"] and all(Path(s).is_relative_to(package) for s in found["sources"])
    assert len(found["audio"]) == 9
    assert all(Path(a).is_relative_to(package) for a in found["audio"])
    assert found["items"] >= 40


def test_an_installed_package_without_resources_says_what_is_missing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    package = installed_copy(site)
    shutil.rmtree(package / "resources")
    done = run_installed(site, tmp_path, "-c", INSTALLED_PROBE, str(tmp_path / "demo.bagel"))
    assert done.returncode != 0
    assert "demo resources not found" in done.stderr
    assert not (tmp_path / "demo.bagel").exists()


def test_the_desktop_entry_names_the_command_and_the_icon() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(DESKTOP / f"{APP_ID}.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"].split()[0] == "bagel-studio"
    assert section["Icon"] == APP_ID
    assert "application/x-bagel-project" in section["MimeType"].split(";")
    mime = ET.parse(DESKTOP / f"{APP_ID}.mime.xml").getroot()
    namespace = "{http://www.freedesktop.org/standards/shared-mime-info}"
    types = [m.get("type") for m in mime.iter(f"{namespace}mime-type")]
    assert types == ["application/x-bagel-project"]


def test_the_metainfo_matches_the_entry_and_the_version() -> None:
    component = ET.parse(DESKTOP / f"{APP_ID}.metainfo.xml").getroot()
    assert component.get("type") == "desktop-application"
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == f"{APP_ID}.desktop"
    assert component.findtext("provides/binary") == "bagel-studio"
    assert component.findtext("project_license") == "MIT"
    releases = [r.get("version") for r in component.iter("release")]
    assert releases[0] == bagel_studio.__version__


def test_the_icon_is_a_square_png_rendered_from_its_svg() -> None:
    png = icon_path().read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == height == 256
    svg = ET.parse(DESKTOP / f"{APP_ID}.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 256 256"
