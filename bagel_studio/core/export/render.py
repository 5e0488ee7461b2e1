"""A batch of released items turned into what the release writer writes and gathers.

``render(batch)`` gives the batch's data lines (grouped by domain, in release order), its
provenance lines, its lines of the content hash, the lengths it adds to the report's table and
its features for the release audit: everything the writer needs of the items, in values that
do not depend on the process that computed them, so that worker processes may render batches
and the writer take them in release order (``processes``) with the same bytes as a
single process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bagel_studio.core.export.audit_section import AuditFeatures, audit_features
from bagel_studio.core.export.plan import ReleasedItem, content_hash_line
from bagel_studio.core.export.rows import item_line, provenance_line
from bagel_studio.core.export.tables import LengthSums


@dataclass(frozen=True)
class Rendered:
    segments: list[tuple[str, str]]  # (domain, the data lines of its items), in release order
    provenance: str
    hashed: bytes  # the batch's lines of the content hash, UTF-8
    lengths: LengthSums
    audit: AuditFeatures
    count: int


def render(batch: Sequence[ReleasedItem]) -> Rendered:
    segments: list[tuple[str, str]] = []
    lines: list[str] = []
    provenance: list[str] = []
    hashed: list[str] = []
    lengths = LengthSums()
    current = ""
    for released in batch:
        domain = released.item.domain
        if domain != current:
            if lines:
                segments.append((current, "".join(lines)))
            lines, current = [], domain
        lines.append(item_line(released))
        provenance.append(provenance_line(released))
        hashed.append(content_hash_line(released))
        lengths.add(domain, released.content.question, released.content.options)
    if lines:
        segments.append((current, "".join(lines)))
    return Rendered(
        segments,
        "".join(provenance),
        "".join(hashed).encode("utf-8"),
        lengths,
        audit_features(batch),
        len(batch),
    )
