"""MinHash signatures of word n-gram shingle sets, computed in batches with numpy.

The shingle set of a text is defined once, by :func:`shingles` (lower-cased ``\\w+`` words joined by
single spaces); :func:`signatures` hashes exactly those sets without ever building the strings:

1. each word gets a 64-bit hash, a polynomial over its Unicode code points evaluated for all words
   of a batch at once with a prefix sum (the text's code points are scaled by powers of the inverse
   base, summed, and each word's slice of the sum is scaled back by a power of the base), plus its
   length, then avalanched;
2. each shingle gets a 64-bit hash, a weighted sum of its words' hashes (one random odd weight per
   position) plus its word count, avalanched; the top 32 bits are the value that is permuted;
3. ``num_perm`` affine bijections ``x -> a*x + b mod 2^32`` (``a`` odd) are applied to the shingle
   values of a few documents at a time, and each document keeps the minimum per permutation.

All constants derive from the seed through SHAKE-256, so signatures are identical across processes,
machines and Python or numpy versions. Keeping the permuted values 32 bits wide lets numpy use
native SIMD multiplies (64-bit multiplies are emulated on AVX2); the cost is that two distinct
shingles share a value with probability 2^-32, i.e. about one shingle in ten thousand document
pairs, which moves a Jaccard estimate by a fraction of a percent at worst.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]

SENTINEL = np.uint32(0xFFFFFFFF)  # every position of the signature of a text without words

_WORD = re.compile(r"\w+")
_MASK64 = (1 << 64) - 1
_SEPARATOR = "\n"  # not a word character, so no word spans two documents of a batch
_BATCH_CHARS = 1 << 18  # characters hashed per numpy pass: big enough to amortise call overhead
# Shingles permuted per block: numpy's broadcast loops only reach full SIMD speed on long rows,
# and num_perm x 8192 uint32 values (3.7 MB) still sit in the shared L3 cache.
_BLOCK_SHINGLES = 8192


@dataclass(frozen=True)
class MinHashConfig:
    num_perm: int = 112
    ngram: int = 5
    seed: int = 1

    def __post_init__(self) -> None:
        if self.num_perm < 1:
            raise ValueError(f"num_perm must be >= 1, got {self.num_perm}")
        if self.ngram < 1:
            raise ValueError(f"ngram must be >= 1, got {self.ngram}")


def tokenize(text: str) -> list[str]:
    """Lower-cased words: the ``\\w+`` runs (Unicode letters, digits, underscore) of ``text.lower()``."""
    return _WORD.findall(text.lower())


def shingles(text: str, ngram: int) -> set[str]:
    """Word n-grams joined by single spaces; a text shorter than ``ngram`` words is one shingle."""
    words = tokenize(text)
    if len(words) <= ngram:
        return {" ".join(words)} if words else set()
    return {" ".join(words[start : start + ngram]) for start in range(len(words) - ngram + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; two empty sets are not evidence of duplication, so they score 0."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass(frozen=True)
class HashParams:
    """Every constant of the signature function, derived from the config's seed."""

    base: int  # odd polynomial base over code points
    length_key: int  # added once per code point of a word
    position_keys: tuple[int, ...]  # odd weight of the word at each position of a shingle
    count_key: int  # added once per word of a shingle
    perm_a: U32  # odd multipliers of the affine permutations
    perm_b: U32


@functools.lru_cache(maxsize=16)
def hash_params(config: MinHashConfig) -> HashParams:
    words = 3 + config.ngram
    stream = hashlib.shake_256(f"almanac.dedup.minhash/v1/seed={config.seed}".encode())
    raw = stream.digest(8 * words + 8 * config.num_perm)
    scalars = [int.from_bytes(raw[8 * i : 8 * i + 8], "little") for i in range(words)]
    perms = np.frombuffer(raw[8 * words :], dtype="<u4").astype(np.uint32).reshape(config.num_perm, 2)
    return HashParams(
        base=scalars[0] | 1,
        length_key=scalars[1],
        count_key=scalars[2],
        position_keys=tuple(value | 1 for value in scalars[3:]),
        perm_a=np.ascontiguousarray(perms[:, 0] | np.uint32(1)),
        perm_b=np.ascontiguousarray(perms[:, 1]),
    )


def mix64(values: U64) -> U64:
    """An avalanching bijection of uint64 (the splitmix64 output function), in place."""
    values ^= values >> np.uint64(30)
    values *= np.uint64(0xBF58476D1CE4E5B9)
    values ^= values >> np.uint64(27)
    values *= np.uint64(0x94D049BB133111EB)
    values ^= values >> np.uint64(31)
    return values


def signatures(texts: Sequence[str], config: MinHashConfig) -> U32:
    """MinHash signatures, shape ``(len(texts), num_perm)``, of the sets ``shingles(text, ngram)``.

    The fraction of positions two rows share estimates the Jaccard similarity of the two shingle
    sets. A text without words gets the all-``SENTINEL`` row.
    """
    params = hash_params(config)
    result = np.full((len(texts), config.num_perm), SENTINEL, dtype=np.uint32)
    block = np.empty((config.num_perm, _BLOCK_SHINGLES), dtype=np.uint32)
    for start, stop in _batches(texts):
        hashes, counts = _shingle_hashes(texts[start:stop], config.ngram, params)
        values = (hashes >> np.uint64(32)).astype(np.uint32)
        _min_permuted(values, counts, params, block, result[start:stop])
        start = stop
    return result


def _batches(texts: Sequence[str]) -> Iterator[tuple[int, int]]:
    """``[start, stop)`` ranges of ``texts`` of about ``_BATCH_CHARS`` characters (at least one text)."""
    start = 0
    while start < len(texts):
        stop, chars = start, 0
        while stop < len(texts) and (stop == start or chars + len(texts[stop]) <= _BATCH_CHARS):
            chars += len(texts[stop]) + 1
            stop += 1
        yield start, stop
        start = stop


def shingle_sets(texts: Sequence[str], config: MinHashConfig) -> tuple[U64, npt.NDArray[np.int64]]:
    """The shingle set of each text as sorted distinct 64-bit shingle hashes, concatenated, and the
    number of hashes of each text.

    These are the hashes :func:`signatures` permutes (before keeping their top 32 bits), computed for a
    whole batch of texts by numpy, with no Python call per shingle. Two distinct shingles of natural text
    share a 64-bit hash with probability about 2^-64, so the Jaccard of two hash sets is the Jaccard of the
    shingle sets (:func:`jaccard`); a text without words has the empty set.
    """
    params = hash_params(config)
    parts: list[U64] = []
    sizes: list[npt.NDArray[np.int64]] = []
    for start, stop in _batches(texts):
        hashes, counts = _shingle_hashes(texts[start:stop], config.ngram, params)
        ends = np.cumsum(counts)
        # each text's hashes sorted in place, one sort call per text (hundreds of values each): a
        # lexsort by (text, hash) of the whole batch was ~20x the CPU, ~1.3 s per 100k articles
        for low, high in zip((ends - counts).tolist(), ends.tolist(), strict=True):
            hashes[low:high].sort()
        owner = np.repeat(np.arange(stop - start, dtype=np.int64), counts)
        first = np.ones(len(hashes), dtype=bool)
        first[1:] = (hashes[1:] != hashes[:-1]) | (owner[1:] != owner[:-1])
        parts.append(hashes[first])
        sizes.append(np.bincount(owner[first], minlength=stop - start).astype(np.int64))
    if not parts:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    return np.concatenate(parts), np.concatenate(sizes)


def _shingle_hashes(
    texts: Sequence[str], ngram: int, params: HashParams
) -> tuple[U64, npt.NDArray[np.int64]]:
    """The 64-bit shingle hashes of each text (one per n-gram position), concatenated, and how many
    belong to each text."""
    # Lower-casing happens per code point in _word_hashes, except where str.lower() is not a
    # per-character map (see _CONTEXTUAL_LOWER); those few texts are lower-cased here first.
    lowered = [text.lower() if _needs_full_lower(text) else text for text in texts]
    joined = _SEPARATOR + _SEPARATOR.join(lowered) + _SEPARATOR
    word_starts, word_hashes = _word_hashes(joined, params)
    lengths = np.fromiter((len(text) + 1 for text in lowered), dtype=np.int64, count=len(lowered))
    text_starts = np.cumsum(lengths) - lengths + 1
    first_word = np.searchsorted(word_starts, text_starts)
    words_per_text = np.diff(first_word, append=len(word_starts))

    total = len(word_hashes) - ngram + 1
    if total > 0:
        combined = word_hashes[:total] * np.uint64(params.position_keys[0])
        for offset in range(1, ngram):
            combined += word_hashes[offset : offset + total] * np.uint64(params.position_keys[offset])
        # keep the n-grams whose first and last words belong to the same text
        owner = np.repeat(np.arange(len(texts)), words_per_text)
        combined = combined[owner[:total] == owner[ngram - 1 :]]
        combined += np.uint64(ngram * params.count_key & _MASK64)
    else:
        combined = np.empty(0, dtype=np.uint64)
    full_counts = np.maximum(words_per_text - ngram + 1, 0)

    short = np.flatnonzero((words_per_text > 0) & (words_per_text < ngram))
    if len(short):  # texts shorter than one n-gram are a single shingle of all their words
        keys = np.array(params.position_keys, dtype=np.uint64)
        extra = np.empty(len(short), dtype=np.uint64)
        for slot, text in enumerate(short):
            size = int(words_per_text[text])
            first = int(first_word[text])
            total_hash = int((word_hashes[first : first + size] * keys[:size]).sum(dtype=np.uint64))
            extra[slot] = (total_hash + size * params.count_key) & _MASK64
        before = (np.cumsum(full_counts) - full_counts)[short]
        combined = np.insert(combined, before, extra)
        full_counts[short] = 1
    return mix64(combined), full_counts


def _word_hashes(joined: str, params: HashParams) -> tuple[npt.NDArray[np.intp], U64]:
    """Start offsets and 64-bit hashes of the words of ``joined`` (which starts and ends with a separator)."""
    if joined.isascii():
        table: npt.NDArray[np.uint8] | npt.NDArray[np.uint32] = _ASCII_LOWER_WORD
        points = np.frombuffer(joined.encode("ascii"), np.uint8)
    else:
        points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), "<u4")
        # the Basic Multilingual Plane's table costs 1/17 of the whole one (~0.3 CPU s, once per
        # process): most non-ASCII news text (accents, quotes, dashes) needs no other
        table = _bmp_lower_word() if int(points.max()) <= _BMP_LAST else _unicode_lower_word()
    codes: npt.NDArray[np.unsignedinteger[Any]] = np.take(table, points)
    is_word = codes != 0
    edges = np.flatnonzero(is_word[1:] != is_word[:-1]) + 1
    starts, ends = edges[0::2], edges[1::2]
    if not len(starts):
        return starts, np.empty(0, dtype=np.uint64)
    powers, inverse_powers = _power_tables(params.base, len(codes))
    prefix = np.cumsum(codes * inverse_powers[: len(codes)], dtype=np.uint64)
    last = ends - 1
    # sum of code[i] * base^(last - i) over the word: its slice of the prefix sum, rescaled
    hashes = (prefix[last] - prefix[starts - 1]) * powers[last]
    hashes += (ends - starts).astype(np.uint64) * np.uint64(params.length_key)
    return starts, mix64(hashes)


def _min_permuted(
    values: U32, counts: npt.NDArray[np.int64], params: HashParams, block: U32, out: U32
) -> None:
    """Per text with ``counts > 0``, the minimum over its values of each permutation, into ``out``."""
    owners = np.flatnonzero(counts)
    if not len(owners):
        return
    bounds = np.concatenate(([0], np.cumsum(counts[owners])))
    mins = np.full((len(owners), len(params.perm_a)), SENTINEL, dtype=np.uint32)
    column_a, column_b = params.perm_a[:, None], params.perm_b[:, None]
    for low in range(0, len(values), block.shape[1]):
        high = min(low + block.shape[1], len(values))
        first = int(np.searchsorted(bounds, low, side="right")) - 1
        last = int(np.searchsorted(bounds, high, side="left"))
        segment_starts = np.maximum(bounds[first:last], low) - low
        permuted = block[:, : high - low]
        np.multiply(column_a, values[low:high], out=permuted)
        permuted += column_b
        partial = np.minimum.reduceat(permuted, segment_starts, axis=1)
        np.minimum(mins[first:last], partial.T, out=mins[first:last])
    out[owners] = mins


# str.lower() maps each character on its own except for these: U+0130 (capital I with dot) becomes
# two characters and U+03A3 (capital sigma) becomes a final or a medial sigma depending on context.
_CONTEXTUAL_LOWER = ("\u0130", "\u03a3")


def _needs_full_lower(text: str) -> bool:
    return not text.isascii() and any(char in text for char in _CONTEXTUAL_LOWER)


def _lower_word_table(chars: str) -> npt.NDArray[np.uint32]:
    """For each character of ``chars``: its lower-case code point if that is a word character, else 0."""
    lowered = chars.lower()
    if len(lowered) != len(chars):  # a Unicode version where lower-casing grows more characters
        raise RuntimeError("str.lower() is no longer one character per character outside _CONTEXTUAL_LOWER")
    codes = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), "<u4").astype(np.uint32)
    is_word = np.zeros(len(codes), dtype=bool)
    for match in _WORD.finditer(lowered):  # ``re`` itself decides what a word character is
        is_word[match.start() : match.end()] = True
    return np.where(is_word, codes, np.uint32(0))


_ASCII_LOWER_WORD = np.concatenate(
    [_lower_word_table("".join(map(chr, range(128)))).astype(np.uint8), np.zeros(128, dtype=np.uint8)]
)


@functools.cache
def _unicode_lower_word() -> npt.NDArray[np.uint32]:
    """``_lower_word_table`` of every code point; the two contextual ones are never looked up."""
    every = "".join(map(chr, range(0x110000))).replace(_CONTEXTUAL_LOWER[0], "\0")
    return _lower_word_table(every)


_BMP_LAST = 0xFFFF


@functools.cache
def _bmp_lower_word() -> npt.NDArray[np.uint32]:
    """``_lower_word_table`` of the code points up to U+FFFF (each character is looked up on its own,
    so this is the first part of the whole table)."""
    every = "".join(map(chr, range(_BMP_LAST + 1))).replace(_CONTEXTUAL_LOWER[0], "\0")
    return _lower_word_table(every)


_POWERS: dict[int, tuple[U64, U64]] = {}


def _power_tables(base: int, size: int) -> tuple[U64, U64]:
    """``base^i`` and ``base^-i`` mod 2^64 for i < size; tables for ordinary batches are kept per base."""
    inverse = pow(base, -1, 1 << 64)
    if size > 2 * _BATCH_CHARS:  # one huge text: computed for it alone, not kept in memory afterwards
        return _powers(base, size), _powers(inverse, size)
    cached = _POWERS.get(base)
    if cached is None:
        cached = (_powers(base, 2 * _BATCH_CHARS), _powers(inverse, 2 * _BATCH_CHARS))
        _POWERS[base] = cached
    return cached


def _powers(base: int, length: int) -> U64:
    table = np.ones(length, dtype=np.uint64)
    filled = 1
    while filled < length:
        take = min(filled, length - filled)
        np.multiply(table[:take], np.uint64(pow(base, filled, 1 << 64)), out=table[filled : filled + take])
        filled += take
    return table
