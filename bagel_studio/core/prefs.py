"""Preferences: a small TOML file in the user's config folder (curator name, recent projects,
blind mode). ``BAGEL_STUDIO_CONFIG_DIR`` overrides the folder (tests, portable installs)."""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

MAX_RECENT = 10


def config_dir() -> Path:
    """The folder of the preferences file: the user's config folder, or
    ``BAGEL_STUDIO_CONFIG_DIR`` when set (tests, portable installs)."""
    override = os.environ.get("BAGEL_STUDIO_CONFIG_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("bagel-studio", appauthor=False))


def data_dir() -> Path:
    """The folder of the user's data (the demo project): the user's data folder, or ``data``
    under ``BAGEL_STUDIO_CONFIG_DIR`` when set."""
    override = os.environ.get("BAGEL_STUDIO_CONFIG_DIR")
    if override:
        return Path(override) / "data"
    return Path(platformdirs.user_data_dir("bagel-studio", appauthor=False))


@dataclass
class Preferences:
    curator: str = ""
    recent_projects: list[str] = field(default_factory=list)
    blind_mode: bool = False

    @classmethod
    def load(cls) -> Preferences:
        path = config_dir() / "preferences.toml"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            return cls()
        recent = data.get("recent_projects", [])
        return cls(
            curator=str(data.get("curator", "")),
            recent_projects=[str(p) for p in recent if isinstance(p, str)][:MAX_RECENT],
            blind_mode=bool(data.get("blind_mode", False)),
        )

    def save(self) -> None:
        folder = config_dir()
        folder.mkdir(parents=True, exist_ok=True)
        # json.dumps of a str is a valid TOML basic string.
        lines = [
            f"curator = {json.dumps(self.curator, ensure_ascii=False)}",
            f"blind_mode = {'true' if self.blind_mode else 'false'}",
            "recent_projects = ["
            + ", ".join(json.dumps(p, ensure_ascii=False) for p in self.recent_projects)
            + "]",
        ]
        target = folder / "preferences.toml"
        temporary = target.with_suffix(".toml.tmp")
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        temporary.replace(target)

    def remember_project(self, path: str | Path) -> None:
        resolved = str(Path(path).resolve())
        self.recent_projects = [resolved] + [p for p in self.recent_projects if p != resolved]
        del self.recent_projects[MAX_RECENT:]
