"""Fixtures of the export tests: real project files in tmp_path, closed after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import NewItem, Store
from tests.core.export.export_support import decide_all, new_project, paper_items

MakeProject = Callable[[Iterable[NewItem]], Store]


@pytest.fixture
def make_project(tmp_path: Path) -> Iterator[MakeProject]:
    """Create a project from items (``p1.bagel``, ``p2.bagel``, ...); closed at teardown."""
    stores: list[Store] = []

    def make(items: Iterable[NewItem]) -> Store:
        store = new_project(tmp_path / f"p{len(stores) + 1}.bagel", items)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def paper_store(make_project: MakeProject, data_dir: Path) -> Store:
    """The 17 items printed in the paper (mostly gold B), all accepted by one curator."""
    store = make_project(paper_items(data_dir))
    decide_all(store, store.items.ids())
    return store


@pytest.fixture
def paper_project(tmp_path: Path, data_dir: Path) -> Path:
    """A closed project file with the paper's items, all accepted."""
    path = tmp_path / "paper.bagel"
    with new_project(path, paper_items(data_dir)) as store:
        decide_all(store, store.items.ids())
    return path
