"""Domains, dimension labels and levels of BAGEL (the paper's Table 2), and their normalisation.

Input is matched tolerantly (case, spacing around "/", common aliases); output always uses the
canonical spelling below.
"""

from __future__ import annotations

import re

WIKIPEDIA = "Wikipedia"
GLOBI = "GloBI"
BIORXIV = "bioRxiv"
XENO_CANTO = "Xeno-canto"

DIMENSIONS: dict[str, tuple[str, ...]] = {
    WIKIPEDIA: (
        "Taxonomy",
        "Behavior",
        "Communication",
        "Morphology",
        "Habitat",
        "Cognition",
        "Geographic Distribution",
        "Diet",
    ),
    GLOBI: ("Masked interaction type inference", "Masked participant identification"),
    BIORXIV: ("Result Interpretation",),
    XENO_CANTO: (
        "Dominant frequency range",
        "Call / syllable duration",
        "Harmonic structure / tonality vs. broadband",
        "Modulation pattern",
    ),
}
DOMAINS: tuple[str, ...] = tuple(DIMENSIONS)
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

# Number of items per domain in the released benchmark (paper, Table 2).
PAPER_DOMAIN_COUNTS: dict[str, int] = {
    WIKIPEDIA: 1927,
    GLOBI: 3500,
    BIORXIV: 2183,
    XENO_CANTO: 4242,
}

_DOMAIN_ALIASES = {
    "wikipedia": WIKIPEDIA,
    "wiki": WIKIPEDIA,
    "globi": GLOBI,
    "biorxiv": BIORXIV,
    "xeno-canto": XENO_CANTO,
    "xenocanto": XENO_CANTO,
    "xeno canto": XENO_CANTO,
    "xeno_canto": XENO_CANTO,
    "xc": XENO_CANTO,
}


def _key(label: str) -> str:
    """Comparison key: lower case, single spaces, no space around "/", no trailing dot."""
    text = re.sub(r"\s+", " ", label.strip().lower())
    text = re.sub(r"\s*/\s*", "/", text)
    return text.rstrip(".")


_DIMENSION_KEYS: dict[str, dict[str, str]] = {
    domain: {_key(d): d for d in dims} for domain, dims in DIMENSIONS.items()
}
# A few spellings seen in the paper and in generator output.
_DIMENSION_KEYS[XENO_CANTO].update(
    {
        "call duration": "Call / syllable duration",
        "syllable duration": "Call / syllable duration",
        "harmonic structure/tonality vs broadband": "Harmonic structure / tonality vs. broadband",
        "harmonic structure": "Harmonic structure / tonality vs. broadband",
        "dominant frequency": "Dominant frequency range",
    }
)
_DIMENSION_KEYS[WIKIPEDIA].update(
    {
        "behaviour": "Behavior",
        "geographic range": "Geographic Distribution",
        "distribution": "Geographic Distribution",
    }
)


def normalize_domain(label: object) -> str | None:
    """The canonical domain name for ``label``, or None when it names no BAGEL domain."""
    if not isinstance(label, str):
        return None
    return _DOMAIN_ALIASES.get(_key(label).replace("/", " "))


def normalize_dimension(domain: str, label: object) -> str | None:
    """The canonical dimension label of ``domain`` matching ``label``, or None."""
    if not isinstance(label, str) or domain not in _DIMENSION_KEYS:
        return None
    return _DIMENSION_KEYS[domain].get(_key(label))


def normalize_level(label: object) -> str | None:
    """``easy``/``medium``/``hard`` from any case, or None."""
    if not isinstance(label, str):
        return None
    text = label.strip().lower()
    return text if text in LEVELS else None


def domain_prefix(domain: str) -> str:
    """The id prefix of items of ``domain`` ("wikipedia", "globi", "biorxiv", "xeno-canto")."""
    return domain.lower()
