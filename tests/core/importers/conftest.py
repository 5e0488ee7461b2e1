"""The importers' tests import into an open project: ``store`` is one, closed after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import Store


@pytest.fixture
def store(project_path: Path) -> Iterator[Store]:
    with Store.open(project_path) as opened:
        yield opened
