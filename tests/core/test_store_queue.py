"""The queue in SQL: whole-word search through the FTS5 index, and count / page / rank / next."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store import NewItem, QueueFilter, Store
from bagel_studio.core.store.paging import SEEK_PATHS, seek_distinct_sql
from bagel_studio.core.store.queue import word_query


def item(item_id: str, question: str, options: tuple[str, ...], domain: str = "GloBI") -> NewItem:
    return NewItem(
        id=item_id,
        domain=domain,
        content=ItemContent(question, options, 0, "Masked participant identification", "easy"),
    )


BAT = item(
    "w:bat", "Which bat roosts in caves?", ("Myotis", "Plecotus", "Nyctalus", "Pipistrellus")
)
WOMBAT = item(
    "w:wombat",
    "Which family do wombats belong to?",
    ("Vombatidae", "Macropodidae", "Phalangeridae", "Dasyuridae"),
)
BATS = item("w:bats", "Where do bats hunt?", ("over water", "in caves", "at dawn", "in Bat Creek"))
CAFE = item(
    "w:cafe", "Which bird nests near the Café Tortoni?", ("sparrow", "rhea", "hornero", "ñandú")
)


def ids(store: Store, **fields: object) -> list[str]:
    return store.items.ids(QueueFilter(**fields))  # type: ignore[arg-type]


def test_search_matches_whole_words_not_parts_of_words(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        store.items.add_items([BAT, WOMBAT, BATS, CAFE], None)
        assert ids(store, search="bat") == ["w:bat", "w:bats"]  # "Bat Creek" is an option of bats
        assert ids(store, search="bat", search_inside_words=True) == ["w:bat", "w:wombat", "w:bats"]
        assert ids(store, search="bat*") == ["w:bat", "w:bats"]
        assert ids(store, search="vombatidae") == ["w:wombat"]  # options are searched, any case
        assert ids(store, search="roosts bat") == ["w:bat"]  # every word must occur
        assert ids(store, search="cafe nandu") == ["w:cafe"]  # accents are ignored
        assert ids(store, search="w:wombat") == ["w:wombat"]  # an id finds its item
        assert ids(store, search='"caves" OR (NEAR') == []  # no FTS5 syntax: words only
        assert ids(store, search="+-!") == []  # no word at all: matched as text
        assert store.items.count(QueueFilter(search="bat", domain="GloBI")) == 2


def test_the_word_index_follows_edits_undo_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        store.items.add_items([BAT, WOMBAT], None)
        edited = store.items.get("w:wombat").content
        operations.edit(
            store, "w:wombat", "ana", edited.__class__(**{**edited.__dict__, "question": "A bat?"})
        )
        assert ids(store, search="bat") == ["w:bat", "w:wombat"]
        assert ids(store, search="wombats") == []
        operations.decide(
            store, "w:bat", "ana", Decision.ACCEPT
        )  # a status change leaves the index alone
        operations.undo(store, "ana")
        operations.undo(store, "ana")  # the edit
        assert ids(store, search="bat") == ["w:bat"]
        assert ids(store, search="wombats") == ["w:wombat"]
    conn = sqlite3.connect(path)  # the index is consistent with its content table
    conn.execute("INSERT INTO items_fts(items_fts, rank) VALUES ('integrity-check', 1)")
    conn.close()
    with Store.open(path, read_only=True) as store:
        assert ids(store, search="bat") == ["w:bat"]


def test_a_project_from_before_the_word_index_gets_it_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.bagel"
    with Store.open(path) as store:
        store.items.add_items([BAT, WOMBAT], None)
    conn = sqlite3.connect(path)  # as written before m_items_word_search
    conn.executescript(
        "DROP TRIGGER items_fts_insert; DROP TRIGGER items_fts_delete;"
        " DROP TRIGGER items_fts_update; DROP TABLE items_fts;"
    )
    conn.close()
    with Store.open(path, read_only=True) as store:  # read-only cannot migrate: matched as text
        assert ids(store, search="bat") == ["w:bat", "w:wombat"]


def test_word_query_quotes_every_word() -> None:
    assert word_query("Bat  caves") == '"Bat" "caves"'
    assert word_query("bat* AND") == '"bat"* "AND"'
    assert word_query("..") is None


def many(count: int) -> list[NewItem]:
    domains = ("GloBI", "Wikipedia")
    return [
        item(f"i{n:04d}", f"Question {n}?", ("a", "b", "c", "d"), domains[n % 2])
        for n in range(count)
    ]


def test_count_page_rank_and_next_in_sql(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        store.items.add_items(many(1000), None)
        globi = QueueFilter(domain="GloBI")
        assert store.items.count(globi) == 500
        first = store.queue.page(globi, 0, 200)
        assert [r["id"] for r in first[:3]] == ["i0000", "i0002", "i0004"]
        by_offset = store.queue.page(globi, 200, 200)
        by_key = store.queue.page(globi, 200, 200, after=first[-1]["key"])
        assert by_offset == by_key and by_key[0]["id"] == "i0400"
        assert len(store.queue.page(globi, 400, 200)) == 100
        assert store.queue.rank(globi, "i0400") == 200
        assert store.queue.rank(globi, "i0401") == -1  # not in this queue
        assert store.queue.next_id(globi, "i0400") == "i0402"
        assert store.queue.next_id(globi, "i0998") == "i0000"  # wraps round
        assert store.queue.next_id(globi, "i0998", wrap=False) is None
        assert store.queue.next_id(globi, "i0401") == "i0402"  # from where it sits in the order
        assert store.queue.next_id(globi, None) == "i0000"
        for n in (0, 2):
            operations.decide(store, f"i000{n}", "ana", Decision.ACCEPT)
        todo = QueueFilter(domain="GloBI", unreviewed_by="ana")
        assert store.queue.next_id(todo, None) == "i0004"
        operations.decide(store, "i0004", "ana", Decision.SKIP)  # skipped items are still to do
        assert store.queue.next_id(todo, "i0000") == "i0004"


def test_ambiguity_order_pages_and_ranks_the_same(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        store.items.add_items(many(300), None)
        queue = QueueFilter(ambiguity_first=True)
        everything = store.items.ids(queue)
        first = store.queue.page(queue, 0, 100)
        rest = store.queue.page(queue, 100, 500, after=first[-1]["key"])
        assert [r["id"] for r in first + rest] == everything
        assert [store.queue.rank(queue, i) for i in everything[:5]] == [0, 1, 2, 3, 4]
        assert store.queue.next_id(queue, everything[149]) == everything[150]


def _distinct_items() -> list[NewItem]:
    shapes = [
        ("GloBI", "Masked participant identification", "easy"),
        ("GloBI", "Interaction type", None),
        ("Wikipedia", "Diet", "hard"),
        ("Wikipedia", None, "medium"),
        ("Xeno-canto", "Dominant frequency", "expert"),
        ("bioRxiv", "Result interpretation", "easy"),
    ]
    return [
        NewItem(
            id=f"d:{n}",
            domain=domain,
            content=ItemContent(f"Question {n}?", ("a", "b", "c", "d"), 0, dimension, level),
        )
        for n, (domain, dimension, level) in enumerate(shapes * 3)
    ]


def test_distinct_values_seek_through_indexes(tmp_path: Path) -> None:
    """The filter bar's choices: the same as reading every item, by index seeks alone (no scan
    of the items), and the plain way from a file without the index opened read-only."""
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        store.items.add_items(_distinct_items(), None)
        operations.decide(store, "d:0", "ana", Decision.ACCEPT)
        operations.decide(store, "d:8", "ana", Decision.REJECT, reason="trivial")
        operations.decide(store, "d:3", "bo", Decision.SKIP)
        for column, (columns, _index) in SEEK_PATHS.items():
            plain = f"SELECT DISTINCT {column} FROM items WHERE {column} IS NOT NULL ORDER BY 1"
            expected = [row[0] for row in store.db.execute(plain)]
            assert store.queue.distinct_values(column) == expected
            assert len(expected) > 1
            plan = store.db.execute("EXPLAIN QUERY PLAN " + seek_distinct_sql("items", columns))
            steps = [str(row[3]) for row in plan]
            assert not [s for s in steps if s.startswith("SCAN t")], steps  # seeks only
        assert store.queue.distinct_values("level") == ["easy", "expert", "hard", "medium"]
        assert store.queue.domains_in_order() == ["GloBI", "Wikipedia", "Xeno-canto", "bioRxiv"]
        assert store.reviews.curators() == ["ana", "bo"]
        plan = store.db.execute("EXPLAIN QUERY PLAN " + seek_distinct_sql("reviews", ["curator"]))
        assert not [row for row in plan if str(row[3]).startswith("SCAN t")]
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX idx_items_queue_filters")
    conn.execute("DROP INDEX idx_reviews_curator")
    conn.close()
    with Store.open(path, read_only=True) as store:  # as a file from before the indexes
        assert store.queue.distinct_values("level") == ["easy", "expert", "hard", "medium"]
        assert store.reviews.curators() == ["ana", "bo"]
