"""The project store: one SQLite file per project (see ``schema.py`` for its tables)."""

from bagel_studio.core.store.evidence import GeneratorRejection, Reject
from bagel_studio.core.store.lock import ProjectLockedError
from bagel_studio.core.store.schema import SchemaTooNewError
from bagel_studio.core.store.store import (
    BlockedError,
    NewItem,
    QueueFilter,
    Store,
    StoreError,
)

__all__ = [
    "BlockedError",
    "GeneratorRejection",
    "NewItem",
    "ProjectLockedError",
    "QueueFilter",
    "Reject",
    "SchemaTooNewError",
    "Store",
    "StoreError",
]
