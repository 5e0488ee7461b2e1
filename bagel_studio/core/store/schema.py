"""The project schema, created and changed only through these named migrations.

A migration is a function decorated with ``@migration``; its name (the function's name) is what a
project file records, with the time it was applied, in sqlite-utils' ``_sqlite_migrations`` table
(set ``bagel-studio``). Each runs once, inside one transaction. New migrations are appended at the
END of this file, each with a unique descriptive name (``m_llm_profiles``): a project that lacks a
named migration gets it, whichever order branches added them in. A file that records a migration
this program does not know was written by a newer BAGEL Studio and is refused rather than misread.

``migrate.apply_migrations`` applies them through sqlite-utils' ``Migrations``, built from this
list when one is pending (and explains how the files of earlier releases are brought onto it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a migration is handed a sqlite-utils Database: imported when one runs
    import sqlite_utils

Migration = Callable[["sqlite_utils.Database"], None]
MIGRATIONS: list[tuple[str, Migration]] = []
# clears an item's release verdict when a column it depends on changes (m_items_release_verdict)
VERDICT_TRIGGER = "items_release_verdict_clear"


def migration(func: Migration) -> Migration:
    """Register ``func`` as the next migration, under its function name."""
    name = func.__name__
    if any(name == known for known, _ in MIGRATIONS):
        raise ValueError(f"two migrations are named {name!r}: give each a unique name")
    MIGRATIONS.append((name, func))
    return func


def migration_names() -> list[str]:
    """The names of every migration, in the order they apply."""
    return [name for name, _ in MIGRATIONS]


class SchemaTooNewError(RuntimeError):
    pass


@migration
def m001_initial(db: sqlite_utils.Database) -> None:
    """The first schema, the tables of the release before named migrations; every later change is
    a migration of its own below."""
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("imports").create(
        {
            "id": int,
            "path": str,
            "name": str,
            "sha256": str,
            "format": str,
            "imported_at": str,
            "summary": str,
        },
        pk="id",
    )
    db.table("imports").create_index(["sha256"])
    db.table("items").create(
        {
            "id": str,
            "seq": int,
            "domain": str,
            "dimension": str,
            "level": str,
            "question": str,
            "options": str,
            "answer_index": int,
            "original": str,
            "status": str,
            "flag_severity": int,
            "flag_checks": str,
            "source": str,
            "supporting_evidence": str,
            "rationale": str,
            "globi_ref": str,
            "recording_id": str,
            "text_key": str,
            "import_id": int,
            "source_file": str,
            "source_line": int,
            "original_hash": str,
        },
        pk="id",
        not_null={"domain", "question", "options", "original", "status"},
    )
    for cols in (["seq"], ["domain", "dimension"], ["status"], ["flag_severity"]):
        db.table("items").create_index(cols)
    db.table("flags").create(
        {"item_id": str, "check_id": str, "severity": str, "message": str, "details": str},
        pk=("item_id", "check_id"),
    )
    db.table("flags").create_index(["check_id"])
    db.table("reviews").create(
        {
            "item_id": str,
            "curator": str,
            "decision": str,
            "reason": str,
            "note": str,
            "content": str,
            "blind_answer": int,
            "decided_at": str,
            "origin": str,
        },
        pk=("item_id", "curator"),
    )
    db.table("adjudications").create(
        {
            "item_id": str,
            "adjudicator": str,
            "decision": str,
            "reason": str,
            "note": str,
            "content": str,
            "decided_at": str,
        },
        pk="item_id",
    )
    db.table("history").create(
        {
            "id": int,
            "item_id": str,
            "curator": str,
            "at": str,
            "action": str,
            "before": str,
            "after": str,
            "undoes": int,
            "origin": str,
        },
        pk="id",
    )
    db.table("history").create_index(["item_id"])
    db.table("history").create_index(["curator", "id"])
    db.table("rejects").create(
        {
            "id": int,
            "import_id": int,
            "file": str,
            "line": int,
            "reason": str,
            "raw": str,
            "raw_bytes": int,
        },
        pk="id",
    )
    db.table("generator_rejections").create(
        {
            "key": str,
            "domain": str,
            "reason": str,
            "source": str,
            "output": str,
            "import_id": int,
            "file": str,
            "line": int,
        },
        pk="key",
    )
    db.table("globi_records").create(
        {
            "ref": str,
            "table_name": str,
            "row": int,
            "source_taxon": str,
            "interaction": str,
            "target_taxon": str,
            "source_path": str,
            "source_path_ranks": str,
            "target_path": str,
            "target_path_ranks": str,
            "locality": str,
            "latitude": float,
            "longitude": float,
            "date": str,
            "citation": str,
            "doi": str,
            "url": str,
            "record": str,
            "import_id": int,
        },
        pk="ref",
    )
    db.table("globi_records").create_index(["source_taxon"])
    db.table("globi_records").create_index(["target_taxon"])
    db.table("texts").create(
        {
            "key": str,
            "kind": str,
            "title": str,
            "scientific_name": str,
            "doi": str,
            "text": str,
            "truncated": int,
            "source_file": str,
            "import_id": int,
        },
        pk="key",
    )
    db.table("recordings").create(
        {
            "id": str,
            "scientific_name": str,
            "common_name": str,
            "vocalization_type": str,
            "licence": str,
            "url": str,
            "recordist": str,
            "file_name": str,
            "audio_path": str,
            "audio_sha256": str,
            "metadata": str,
            "import_id": int,
        },
        pk="id",
    )
    db.table("audio_measurements").create(
        {"audio_sha256": str, "version": str, "result": str, "computed_at": str},
        pk=("audio_sha256", "version"),
    )
    db.table("exports").create(
        {"id": int, "out_dir": str, "seed": int, "exported_at": str, "manifest": str}, pk="id"
    )
    db.table("merges").create(
        {"id": int, "path": str, "sha256": str, "merged_at": str, "summary": str}, pk="id"
    )


@migration
def m002_globi_taxon_nocase_indexes(db: sqlite_utils.Database) -> None:
    """Case-insensitive indexes on the record taxa, so ``globi_records_with_taxon`` (which
    compares with ``COLLATE NOCASE``) looks records up instead of scanning them all."""
    for column in ("source_taxon", "target_taxon"):
        db.execute(
            f"CREATE INDEX IF NOT EXISTS idx_globi_records_{column}_nocase"
            f" ON globi_records ({column} COLLATE NOCASE)"
        )


@migration
def m_llm_tables(db: sqlite_utils.Database) -> None:
    """Model profiles, stored model answers (one per profile settings, prompt, item content and
    option order), judge verdicts and the link from a regenerated item to the one it replaces."""
    db.table("llm_profiles").create(
        {"label": str, "profile": str, "created_at": str, "updated_at": str}, pk="label"
    )
    db.table("llm_answers").create(
        {
            "id": int,
            "profile": str,
            "settings_hash": str,
            "prompt_hash": str,
            "item_id": str,
            "content_hash": str,
            "option_order": str,
            "shown_seed": int,
            "model": str,
            "raw_reply": str,
            "parse": str,
            "letter": str,
            "option_index": int,
            "correct": int,
            "error": str,
            "latency_ms": float,
            "prompt_tokens": int,
            "completion_tokens": int,
            "attempts": int,
            "origin": str,
            "answered_at": str,
        },
        pk="id",
    )
    db.execute(
        "CREATE UNIQUE INDEX idx_llm_answers_key ON llm_answers"
        " (profile, settings_hash, prompt_hash, item_id, content_hash, option_order)"
    )
    db.table("llm_answers").create_index(["item_id"])
    db.table("llm_verdicts").create(
        {
            "id": int,
            "item_id": str,
            "profile": str,
            "model": str,
            "content_hash": str,
            "verdict": str,
            "key_index": int,
            "reason": str,
            "raw_reply": str,
            "error": str,
            "asked_at": str,
        },
        pk="id",
    )
    db.table("llm_verdicts").create_index(["item_id"])
    db.table("llm_regenerations").create(
        {
            "id": int,
            "item_id": str,
            "regenerated_from": str,
            "profile": str,
            "model": str,
            "outcome": str,
            "reason": str,
            "raw_reply": str,
            "created_at": str,
        },
        pk="id",
    )
    db.table("llm_regenerations").create_index(["regenerated_from"])


@migration
def m_items_word_search(db: sqlite_utils.Database) -> None:
    """A full-text index of each item's id, stem and options (SQLite FTS5), so that the queue's
    search matches whole words ("bat" finds bats, not Vombatidae) through an index instead of
    reading every stem. It is an external-content index over ``items``, kept in step by triggers
    on insert, delete and on updates of those three columns (import, edit, undo, merge), so no
    write path has to remember it; flag and status updates do not touch it. Its rowid is the
    item's ``seq`` (unique, never changed), so the index lists matches in queue order: a page
    of a search, or where an item sits among the matches, is read from the index alone."""
    db.execute(
        "CREATE VIRTUAL TABLE items_fts USING fts5(id, question, options, content='items',"
        " content_rowid='seq', tokenize='unicode61 remove_diacritics 2')"
    )
    columns = "rowid, id, question, options"
    new = "new.seq, new.id, new.question, new.options"
    old = "'delete', old.seq, old.id, old.question, old.options"
    db.execute(
        "CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN"
        f" INSERT INTO items_fts({columns}) VALUES ({new}); END"
    )
    db.execute(
        "CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN"
        f" INSERT INTO items_fts(items_fts, {columns}) VALUES ({old}); END"
    )
    db.execute(
        "CREATE TRIGGER items_fts_update AFTER UPDATE OF id, question, options ON items BEGIN"
        f" INSERT INTO items_fts(items_fts, {columns}) VALUES ({old});"
        f" INSERT INTO items_fts({columns}) VALUES ({new}); END"
    )
    db.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")


@migration
def m_items_queue_indexes(db: sqlite_utils.Database) -> None:
    """Indexes for the queue at 200,000 items. Items by domain in queue order: a domain's pages
    (``WHERE domain = ? ORDER BY seq LIMIT n``) read only the rows they show, and the domain
    filter lists domains in the order the queue meets them. And one narrow index holding every
    column the filters compare, so that counting a filter's items reads that index, never the
    wide item rows. And the items of a recording, re-checked when its clip is measured."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_items_domain_seq ON items (domain, seq)")
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_items_recording ON items (recording_id COLLATE NOCASE)"
    )
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_items_queue_filters ON items"
        " (domain, status, level, dimension, flag_severity, flag_checks)"
    )


@migration
def m_flag_origin(db: sqlite_utils.Database) -> None:
    """Where a flag comes from: NULL for an item's own checks, "audit" for the flags the
    project-wide audit sets (near-duplicates, leaks), which re-running an item's checks keeps."""
    db.execute("ALTER TABLE flags ADD COLUMN origin TEXT")


@migration
def m_pending_checks(db: sqlite_utils.Database) -> None:
    """Items whose checks are due: written with the items (or the evidence that changes their
    flags) in the import's transaction, removed with the flags that the checks write. Rows left
    behind by an interrupted import are finished by the next import, ``check`` or desk open."""
    db.execute(
        "CREATE TABLE pending_checks (item_id TEXT PRIMARY KEY"
        " REFERENCES items(id) ON DELETE CASCADE)"
    )


@migration
def m_import_file_stats(db: sqlite_utils.Database) -> None:
    """What passing over an unchanged file needs without reading it. ``imports.size``: the
    bytes of the file each import read (unknown, NULL, for imports recorded before). And
    ``import_files``: per path, the import whose content the file held when last read, with the
    file's stat then (size, modification and change times in ns, inode, device): a file whose
    stat is unchanged still holds that content (see ``importers.runner``)."""
    db.execute("ALTER TABLE imports ADD COLUMN size INTEGER")
    db.execute("CREATE INDEX idx_imports_size ON imports (size)")
    db.execute(
        "CREATE TABLE import_files (path TEXT PRIMARY KEY,"
        " import_id INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE,"
        " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,"
        " inode INTEGER NOT NULL, device INTEGER NOT NULL)"
    )


@migration
def m_reviews_curator_index(db: sqlite_utils.Database) -> None:
    """The decisions by curator: the desk lists the project's curators at each start, which
    read every decision (50 ms at 200,000) before; through this index it is a seek per
    curator."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_reviews_curator ON reviews (curator)")


@migration
def m_llm_evidence_sent(db: sqlite_utils.Database) -> None:
    """What a judge's or a generator's request sent of the item's evidence: its characters, of
    how many, and, when it was shortened (to fit the model's context, or the judge's cap), a note
    saying so, by how much and why (NULL when it was sent whole)."""
    for table in ("llm_verdicts", "llm_regenerations"):
        for column, kind in (
            ("evidence_chars", "INTEGER"),
            ("evidence_total_chars", "INTEGER"),
            ("evidence_note", "TEXT"),
        ):
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


@migration
def m_items_release_order(db: sqlite_utils.Database) -> None:
    """The index of items by domain and queue position also holds their status and id, so that
    an export puts a domain's accepted and revised items in order from the index alone, without
    reading their rows (0.35 s at 200,000 items). The queue's pages by domain use it as before."""
    db.execute("DROP INDEX IF EXISTS idx_items_domain_seq")
    db.execute("CREATE INDEX idx_items_domain_seq ON items (domain, seq, status, id)")


@migration
def m_items_release_verdict(db: sqlite_utils.Database) -> None:
    """Each item's release verdict (``checks.verdict``): whether its content columns pass the
    structural checks and which of its options keep their place when shuffled, as one number
    an import stores, so that an export need not work both out again for an item released as
    imported. NULL when unknown: for items imported before this column, and as soon as any
    content column changes (the trigger below, so that no write path has to remember it): an
    export then checks the item itself, as before. So an item with a verdict also has its
    content columns as imported (``original``), which the export relies on too."""
    db.execute("ALTER TABLE items ADD COLUMN release_verdict INTEGER")
    db.execute(
        f"CREATE TRIGGER {VERDICT_TRIGGER} AFTER UPDATE OF domain, question, options,"
        " answer_index, dimension, level ON items WHEN new.release_verdict IS NOT NULL BEGIN"
        " UPDATE items SET release_verdict = NULL WHERE id = new.id; END"
    )


@migration
def m_species_detections(db: sqlite_utils.Database) -> None:
    """BirdNET's detections of each clip (``core.audio.species``): every label's confidence per
    window, as JSON, keyed like ``audio_measurements`` by the audio's SHA-256 and the detection's
    version (which names the model and its version), with the model's name beside it."""
    db.table("species_detections").create(
        {"audio_sha256": str, "version": str, "model": str, "result": str, "computed_at": str},
        pk=("audio_sha256", "version"),
    )


@migration
def m_llm_reply_note(db: sqlite_utils.Database) -> None:
    """What is said of a model's reply stored as it is not: cut at the size the client reads
    (``llm.client.REPLY_LIMIT``), with how much the server announced. NULL for a reply stored
    whole."""
    for table in ("llm_answers", "llm_verdicts", "llm_regenerations"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN reply_note TEXT")


@migration
def m_review_plans(db: sqlite_utils.Database) -> None:
    """A review team's plans (``core.assignment``): each plan's settings (the team, curators per
    item, the risk rule, the calibration share, the seed) and the key its packages' bindings are
    signed with, which never leaves the project; who has which item, in which round and at which
    place of their queue (an item once per curator: the key); and each package collected back,
    with when (a decision dated after it is refused)."""
    db.execute(
        "CREATE TABLE review_plans (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
        " created_at TEXT NOT NULL, settings TEXT NOT NULL, secret TEXT NOT NULL)"
    )
    db.execute(
        "CREATE TABLE plan_assignments (plan_id TEXT NOT NULL REFERENCES review_plans(id)"
        " ON DELETE CASCADE, item_id TEXT NOT NULL, curator TEXT NOT NULL,"
        " round INTEGER NOT NULL, position INTEGER NOT NULL, reason TEXT NOT NULL,"
        " PRIMARY KEY (plan_id, item_id, curator))"
    )
    db.execute(
        "CREATE INDEX idx_plan_assignments_curator ON plan_assignments"
        " (plan_id, curator, round, position)"
    )
    db.execute(
        "CREATE TABLE plan_collections (id INTEGER PRIMARY KEY, plan_id TEXT NOT NULL"
        " REFERENCES review_plans(id) ON DELETE CASCADE, curator TEXT NOT NULL,"
        " round INTEGER NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL,"
        " collected_at TEXT NOT NULL, summary TEXT NOT NULL)"
    )
    db.execute(
        "CREATE INDEX idx_plan_collections_package ON plan_collections (plan_id, curator, round)"
    )


@migration
def m_llm_answers_order_in_key(db: sqlite_utils.Database) -> None:
    """The order a model was shown the options in is part of its run: an answer is kept per
    profile, settings, prompt, item content, option order and ``shown_seed`` (the release
    whose shuffle it was asked in; NULL, the project's order, counts as one value), so that a
    run asked in a release's order is complete on its own and never borrows an answer asked in
    another order that happened to show the same option order. Answers stored before keep the
    seed they were asked with."""
    db.execute("DROP INDEX IF EXISTS idx_llm_answers_key")
    db.execute(
        "CREATE UNIQUE INDEX idx_llm_answers_key ON llm_answers (profile, settings_hash,"
        " prompt_hash, item_id, content_hash, option_order, coalesce(shown_seed, -1))"
    )


@migration
def m_reviewed_project_reads(db: sqlite_utils.Database) -> None:
    """Reads that grew with a project's decisions, not with what they look at: an item's history
    asks of each entry whether a later one undoes it, which read the whole history without an
    index on ``undoes`` (60-250 ms per item shown on 200,000 decided items; the index holds the
    undos only); and the progress line counts a curator's decisions that are not skips after
    every decision, which read each review's row through the curator's index: an index of the
    curator and the decision answers it alone (``idx_reviews_curator`` is left as it is: a file
    is compared with what each of its recorded migrations built, so a migration changes no
    object an earlier one made)."""
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_history_undoes ON history (undoes) WHERE undoes IS NOT NULL"
    )
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_reviews_curator_decision ON reviews (curator, decision)"
    )


@migration
def m_rejects_by_file(db: sqlite_utils.Database) -> None:
    """The rejected lines by file and line: the desk lists them again by file, a page at a time
    (a file of 200,000 malformed lines was read whole for each page), and ``stats --rejects``
    prints them in that order."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_rejects_file ON rejects (file, line, id)")


@migration
def m_given_answers(db: sqlite_utils.Database) -> None:
    """The gold answer as the generator gave it, of each item whose gold matches none of its
    options (a row for those items only): the ``gold-invalid`` flag, the item and its editor
    name it, so that the curator fixing the gold sees what was meant (a typo, a letter past D).
    A table of its own, not a column of ``items``: a project from before it, opened read-only
    and so not migrated, reads as one without such answers (``Items.item_columns``)."""
    db.execute(
        "CREATE TABLE given_answers (item_id TEXT PRIMARY KEY REFERENCES items(id)"
        " ON DELETE CASCADE,"
        " answer TEXT NOT NULL)"
    )
