"""The project store: one SQLite file per project (see ``schema.py`` for its tables)."""

from bagel_studio.core.store.errors import BlockedError, StoreError
from bagel_studio.core.store.imports import GeneratorRejection, Reject
from bagel_studio.core.store.lock import ProjectLockedError
from bagel_studio.core.store.queue import QueueFilter
from bagel_studio.core.store.rows import NewItem
from bagel_studio.core.store.schema import SchemaTooNewError
from bagel_studio.core.store.store import Store

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
