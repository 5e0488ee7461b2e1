"""MinHash signatures and LSH banding over whole arrays, for near-duplicate search at scale.

The algorithm is datasketch's (MinHash of a token set, LSH by bands of rows), computed with numpy
over every item at once: datasketch's per-object API took about a minute for 200,000 items here
(18 s to build the signatures with ``MinHash.bulk``, 31 s to insert them into ``MinHashLSH``,
12 s to query), well over the audit's whole budget. Tokens are numbered, hashed by
multiply-shift with fixed odd multipliers (so results do not change between runs), and each item's
signature is the minimum per hash function over its tokens (each token hashed once, then gathered
per block of items). Items whose signatures agree on
every row of some band are candidates; the caller verifies each candidate pair exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from itertools import chain

import numpy as np

ROWS = 3  # rows per band: P(candidate) = 1 - (1 - J**3)**BANDS
BANDS = 20  # J = 0.6 -> 0.99, J = 0.5 -> 0.93, J = 0.2 -> 0.15, J = 0.05 -> 0.0025
PERMUTATIONS = ROWS * BANDS
CHUNK = 4_096  # items per block of the signature computation (bounds memory)
LARGE_BUCKET = 64  # beyond this many items in one bucket, pair neighbours only


def _hash_parameters(seed: int = 20240601) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    multipliers = rng.integers(1, 2**63, size=PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
    offsets = rng.integers(0, 2**63, size=PERMUTATIONS, dtype=np.uint64)
    return multipliers, offsets


def signatures(token_sets: Sequence[Collection[int]], vocabulary: int) -> np.ndarray:
    """The MinHash signature (PERMUTATIONS uint32 values) of each non-empty set of token
    numbers (each below ``vocabulary``)."""
    lengths = np.fromiter((len(t) for t in token_sets), dtype=np.int64, count=len(token_sets))
    tokens = np.fromiter(chain.from_iterable(token_sets), dtype=np.int64, count=int(lengths.sum()))
    return flat_signatures(tokens, lengths, vocabulary)


def flat_signatures(tokens: np.ndarray, lengths: np.ndarray, vocabulary: int) -> np.ndarray:
    """``signatures`` of sets given flat: ``tokens`` holds every set's tokens one set after
    another, ``lengths`` how many each set has (each at least one)."""
    multipliers, offsets = _hash_parameters()
    numbers = np.arange(vocabulary, dtype=np.uint64)
    with np.errstate(over="ignore"):  # multiply-shift hashing wraps around on purpose
        hashed = (numbers[:, None] * multipliers[None, :] + offsets[None, :]) >> np.uint64(32)
    table = hashed.astype(np.uint32)  # every token's hash under every permutation, once
    ends = np.cumsum(lengths)
    starts = ends - lengths
    result = np.empty((len(lengths), PERMUTATIONS), dtype=np.uint32)
    for start in range(0, len(lengths), CHUNK):
        stop = min(start + CHUNK, len(lengths))
        first, last = int(starts[start]), int(ends[stop - 1])
        block = tokens[first:last]
        result[start:stop] = np.minimum.reduceat(table[block], starts[start:stop] - first, axis=0)
    return result


def candidate_pairs(signature: np.ndarray) -> Iterator[tuple[int, int]]:
    """Pairs of rows (i < j) whose signatures agree on a whole band, each pair once per band
    it shares (the caller deduplicates)."""
    rows = signature.shape[0]
    if rows < 2:
        return
    mix = np.array([0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F], dtype=np.uint64)
    for band in range(BANDS):
        part = signature[:, band * ROWS : (band + 1) * ROWS].astype(np.uint64)
        with np.errstate(over="ignore"):
            keys = part[:, 0] * mix[0]
            for column in range(1, ROWS):
                keys = (keys ^ (part[:, column] * mix[column])) * np.uint64(0x100000001B3)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        boundaries = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
        starts = np.concatenate(([0], boundaries))
        ends = np.concatenate((boundaries, [rows]))
        for begin, end in zip(starts[ends - starts > 1], ends[ends - starts > 1], strict=True):
            members = sorted(int(m) for m in order[begin:end])
            if len(members) <= LARGE_BUCKET:
                for a in range(len(members)):
                    for b in range(a + 1, len(members)):
                        yield members[a], members[b]
            else:  # many identical sets: neighbours suffice to join them into one cluster
                for a in range(len(members) - 1):
                    yield members[a], members[a + 1]
