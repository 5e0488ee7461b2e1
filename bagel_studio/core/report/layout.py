"""Where each file of a release lives (relative to the release folder).

```
README.md               dataset card (Hugging Face convention)
manifest.json           seed, tool version, counts, content hash, SHA-256 of every other file
manifest.json.sig       its SSH signature, when the export was signed (export --sign)
provenance.jsonl        one line per released item: source, permutation, revision, decisions
data/all.jsonl          every released item
data/<domain>.jsonl     the items of one domain (wikipedia, globi, biorxiv, xeno-canto)
report/report.md        tables: counts, gold positions before/after, outcomes, reject reasons
report/*.png            the same as plots
```
"""

from __future__ import annotations

from bagel_studio.core.domains import domain_prefix

README = "README.md"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.sig"  # beside the manifest (``importers.signing``)
PROVENANCE = "provenance.jsonl"
ALL_ITEMS = "data/all.jsonl"
REPORT = "report/report.md"
REPORT_DIR = "report"

# The fields of an item's line in the data files, in their order (FORMATS.md section 1).
ITEM_FIELDS = (
    "id",
    "domain",
    "dimension",
    "level",
    "question",
    "options",
    "answer",
    "answer_index",
    "recording",
)

FORMAT_NAME = "bagel-studio-release"
FORMAT_VERSION = 1


def domain_file(domain: str) -> str:
    """The data file of one domain: ``data/xeno-canto.jsonl`` for "Xeno-canto"."""
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in domain_prefix(domain))
    return f"data/{slug}.jsonl"


def config_name(domain: str) -> str:
    """The dataset card's config name of a domain (same as its file's stem)."""
    return domain_file(domain).removeprefix("data/").removesuffix(".jsonl")
