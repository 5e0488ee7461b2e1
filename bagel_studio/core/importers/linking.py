"""Which Wikipedia article a flat item is about, when the item names none.

A flat item (the release's shape) carries no ``source``: its stem, and often its id
("wikipedia:andean-flamingo:0"), name the species, and the article's title is that species
("Andean flamingo"), or its first sentence gives the scientific name ("The koala (Phascolarctos
cinereus) is ..."). ``NameIndex`` finds, for an item, the article whose title or scientific name
its id's species part equals or its stem says as whole words (a plural "-s" or "-es" too); the
longest name said wins, so "grey wolf" is not taken for an article on the grey of something.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bagel_studio.core.domains import WIKIPEDIA
from bagel_studio.core.store import Store

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_WORDS = 6  # the longest name looked for, in words


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


class NameIndex:
    """The titles and scientific names of articles, by their words."""

    def __init__(self, articles: Iterable[tuple[str, str | None]]) -> None:
        """``articles``: (title, scientific name or None) of each article."""
        self.titles: dict[tuple[str, ...], str] = {}
        # the first word of each name, with the most words a name starting with it has: a
        # stem's words are looked up only where a name may start (most start none)
        self.first: dict[str, int] = {}
        for title, scientific in articles:
            for name in (title, scientific):
                words = tuple(_words(name or ""))
                if words and len(words) <= MAX_WORDS:
                    self.titles.setdefault(words, title)
                    # its plural too, for a name of one word ("lions")
                    for first in (words[0], words[0] + "s", words[0] + "es"):
                        self.first[first] = max(self.first.get(first, 0), len(words))

    def __bool__(self) -> bool:
        return bool(self.titles)

    def article_for(self, item_id: str, stem: str) -> str | None:
        """The title of the article ``item_id`` / ``stem`` names, or None."""
        parts = item_id.split(":")
        if len(parts) >= 3:  # domain:species:index
            named = self.titles.get(tuple(_words(" ".join(parts[1:-1]))))
            if named is not None:
                return named
        return self._said_in(_words(stem))

    def _said_in(self, words: list[str]) -> str | None:
        best: tuple[int, int, str] | None = None  # (-length, position, title)
        for start, word in enumerate(words):
            longest = self.first.get(word)
            if longest is None:
                continue
            for length in range(min(longest, len(words) - start), 0, -1):
                if best is not None and length < -best[0]:
                    break
                found = self._lookup(words[start : start + length])
                if found is not None:
                    candidate = (-length, start, found)
                    best = candidate if best is None else min(best, candidate)
                    break
        return None if best is None else best[2]

    def _lookup(self, words: list[str]) -> str | None:
        key = tuple(words)
        found = self.titles.get(key)
        if found is None:  # a plural: "lions", "foxes"
            for singular in _singulars(words[-1]):
                found = self.titles.get((*key[:-1], singular))
                if found is not None:
                    break
        return found


def _singulars(word: str) -> list[str]:
    """What ``word`` may be the plural of ("foxes": "fox", "foxe"; "lions": "lion")."""
    return [word[: -len(cut)] for cut in ("es", "s") if word.endswith(cut) and len(word) > 4]


def wikipedia_links(store: Store) -> list[tuple[str, str]]:
    """(item id, text key) of each Wikipedia item that names no article and whose stem or id
    names one of the project's articles."""
    names = NameIndex(store.evidence.text_names("wikipedia"))
    if not names:  # no article: the items need not even be read
        return []
    links = []
    waiting = store.items.without_text(WIKIPEDIA)
    for item_id, stem in waiting:
        title = names.article_for(item_id, stem)
        if title is not None:
            links.append((item_id, f"title:{title}"))
    return links
