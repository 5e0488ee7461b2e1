"""The release report: the tables people read, and the plots for those who would rather look.

``report/report.md`` holds the counts per domain and dimension (the paper's Table 2), the stem
and option lengths, the gold positions per domain before and after shuffling (its Tables 9 and
10), the review outcomes and the reject reasons, each followed by its plot; then the sections
the other features add (``Section``: the models' tables, the benchmark audit), in the order given.
"""

from __future__ import annotations

from collections.abc import Sequence

from bagel_studio.core.report import layout
from bagel_studio.core.report.plots import release_plots
from bagel_studio.core.report.release import Release, Section
from bagel_studio.core.report.tables import (
    LengthSums,
    dimension_table,
    left_out_table,
    length_table,
    movable_table,
    outcome_table,
    position_table,
    reject_table,
)


def report_markdown(
    release: Release, content_hash: str, lengths: LengthSums, sections: Sequence[Section]
) -> str:
    """report.md: the release's own tables, then ``sections``."""
    blocked = "".join(f"- {b}\n" for b in release.blocked)
    immovable = sum(b.immovable for b in release.balance.values())
    return f"""# Release report

Seed {release.seed}; {len(release.items)} items released; content hash `{content_hash}`.

## Items per domain and dimension

{dimension_table(release)}
![Released items per domain and dimension](counts.png)

## Stem and option lengths

Mean lengths of the released items' stems and options (words are separated by whitespace):

{length_table(release, lengths)}
## Gold positions

Before shuffling (the curated order):

{position_table(release, "before")}
After shuffling:

{position_table(release, "after")}
Among the items whose gold can move ({immovable} items keep their gold in place because it is a
fixed-order option or the only free place):

{movable_table(release)}
![Gold positions before and after shuffling](gold_positions.png)

## Review outcomes

{outcome_table(release)}
![Review outcomes per domain](review_outcomes.png)

Left out of the release:

{left_out_table(release)}
## Reject reasons

{reject_table(release)}
![Reject reasons](reject_reasons.png)
{"" if not blocked else chr(10) + "## Blocked items" + chr(10) * 2 + blocked}""" + "".join(
        section.markdown for section in sections
    )


def report_files(
    release: Release,
    content_hash: str,
    lengths: LengthSums,
    sections: Sequence[Section],
    plots: dict[str, bytes] | None = None,
) -> dict[str, bytes]:
    """{path in the release: bytes} of report.md and every plot it links to (``plots``: the
    release's own, ``release_plots``, if drawn already)."""
    files = {layout.REPORT: report_markdown(release, content_hash, lengths, sections).encode()}
    for name, png in (release_plots(release) if plots is None else plots).items():
        files[f"{layout.REPORT_DIR}/{name}"] = png
    for section in sections:
        for name, png in section.plots.items():
            files[f"{layout.REPORT_DIR}/{name}"] = png
    return files
