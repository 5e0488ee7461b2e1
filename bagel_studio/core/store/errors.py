"""The store's errors: each message is meant for the curator."""

from __future__ import annotations


class StoreError(RuntimeError):
    """A request the store refuses, with a message meant for the curator."""


class BlockedError(StoreError):
    """Accepting an item that still has a blocking flag."""
