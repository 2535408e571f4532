"""MinHash signatures and LSH candidates: definitions checked by hand and against a scalar reference."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from datasketch import MinHashLSH

from almanac.dedup import minhash
from almanac.dedup.lsh import band_candidate_probability, candidate_pairs, optimal_bands_rows
from almanac.dedup.minhash import (
    SENTINEL,
    MinHashConfig,
    hash_params,
    jaccard,
    shingles,
    signatures,
    tokenize,
)

REPO = Path(__file__).resolve().parents[1]
MASK64 = (1 << 64) - 1


def test_tokenize_lowercases_unicode_words() -> None:
    assert tokenize("Hello, World! It's 2024.") == ["hello", "world", "it", "s", "2024"]
    assert tokenize("STRASSE Straße ÉCOLE café_au_lait") == ["strasse", "straße", "école", "café_au_lait"]
    assert tokenize("東京タワー — “quoted” text") == ["東京タワー", "quoted", "text"]
    assert tokenize("") == []
    assert tokenize("  ... !! -- ") == []


def test_shingles_are_word_ngrams_and_short_texts_are_one_shingle() -> None:
    assert shingles("A b, C d e F", 5) == {"a b c d e", "b c d e f"}
    assert shingles("one two three four five", 5) == {"one two three four five"}
    assert shingles("Only, three words!", 5) == {"only three words"}
    assert shingles("x x x x x x x x", 5) == {"x x x x x"}
    assert shingles("b a b", 1) == {"a", "b"}
    assert shingles("", 5) == set()
    assert shingles(" ?! ", 5) == set()


def test_jaccard() -> None:
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard({"a"}, {"a"}) == 1.0
    assert jaccard({"a"}, set()) == 0.0
    assert jaccard(set(), set()) == 0.0


def _mix(value: int) -> int:
    value ^= value >> 30
    value = value * 0xBF58476D1CE4E5B9 & MASK64
    value ^= value >> 27
    value = value * 0x94D049BB133111EB & MASK64
    return value ^ (value >> 31)


def _reference_signature(text: str, config: MinHashConfig) -> list[int]:
    """The documented construction, one shingle string at a time, in Python integers."""
    params = hash_params(config)
    values = []
    for shingle in shingles(text, config.ngram):
        words = shingle.split(" ")
        total = len(words) * params.count_key
        for position, word in enumerate(words):
            poly = 0
            for char in word:
                poly = (poly * params.base + ord(char)) & MASK64
            word_hash = _mix((poly + len(word) * params.length_key) & MASK64)
            total += word_hash * params.position_keys[position]
        values.append(_mix(total & MASK64) >> 32)
    if not values:
        return [int(SENTINEL)] * config.num_perm
    return [
        min((int(a) * value + int(b)) & 0xFFFFFFFF for value in values)
        for a, b in zip(params.perm_a, params.perm_b, strict=True)
    ]


def _random_words(rng: random.Random, count: int, alphabet: str) -> list[str]:
    return ["".join(rng.choices(alphabet, k=rng.randint(1, 9))) for _ in range(count)]


_SCRIPTS = ((0x20, 0x250), (0x300, 0x530), (0x1E00, 0x1F00), (0x3040, 0x30A0), (0x10400, 0x10450))


def test_signatures_equal_minhash_of_the_exact_shingle_sets() -> None:
    config = MinHashConfig(num_perm=24, ngram=3, seed=7)
    rng = random.Random(3)
    texts = [
        "Hello, World! This is a test of the emergency broadcast system.",
        "",
        "  ...  ",
        "one",
        "Two Words",
        "Ünïcödé İstanbul STRASSE straße ΣΊΣΥΦΟΣ 東京 café_au_lait 42",
        "a b c",
        "x" * 300 + " long tokens " + "y" * 70,
        "\U0001f600 emoji\U0001f600word and more words",
        "lone \ud800 surrogate in text",
    ]
    texts += [" ".join(_random_words(rng, rng.randint(0, 60), "abc\u00e9\u2019 _.,")) for _ in range(40)]
    # letters of several scripts (with case), combining marks, digits, astral-plane cased letters
    pool = [chr(code) for start, stop in _SCRIPTS for code in range(start, stop)] + [" "] * 200
    texts += ["".join(rng.choices(pool, k=rng.randint(1, 400))) for _ in range(40)]
    sigs = signatures(texts, config)
    assert sigs.shape == (len(texts), 24)
    assert sigs.dtype == np.uint32
    for text, row in zip(texts, sigs, strict=True):
        assert row.tolist() == _reference_signature(text, config), text


def test_a_batch_without_astral_characters_uses_the_small_table_and_hashes_the_same() -> None:
    """Non-ASCII text within U+FFFF (accents, quotes, dashes, Greek, kana) is looked up in the Basic
    Multilingual Plane's table alone, which must give the reference signatures; the whole table is
    built only for a batch holding a character beyond U+FFFF."""
    config = MinHashConfig(num_perm=16, ngram=2, seed=5)
    rng = random.Random(11)
    pool = [chr(code) for start, stop in _SCRIPTS[:4] for code in range(start, stop)] + [" "] * 120
    texts = ["\u201cQuoted\u201d \u2014 caf\u00e9 \u00c9T\u00c9 \u039f\u0394\u039f\u03a3 \u6771\u4eac"]
    texts += ["".join(rng.choices(pool, k=rng.randint(1, 300))) for _ in range(30)]
    minhash._unicode_lower_word.cache_clear()
    sigs = signatures(texts, config)
    assert minhash._unicode_lower_word.cache_info().currsize == 0  # the whole table was not built
    for text, row in zip(texts, sigs, strict=True):
        assert row.tolist() == _reference_signature(text, config), text
    astral = signatures(["\U00010400 deseret", texts[0]], config)  # U+10400 lower-cases to U+10428
    assert minhash._unicode_lower_word.cache_info().currsize == 1
    assert astral[0].tolist() == _reference_signature("\U00010400 deseret", config)
    assert np.array_equal(astral[1], sigs[0])


def test_signatures_do_not_depend_on_batching_or_case_or_punctuation() -> None:
    config = MinHashConfig()
    rng = random.Random(5)
    texts = [" ".join(_random_words(rng, 700, "abcdefghij")) for _ in range(120)]  # > one batch
    together = signatures(texts, config)
    assert np.array_equal(together[117], signatures([texts[117]], config)[0])
    assert np.array_equal(signatures([texts[0].upper().replace(" ", " -- ")], config)[0], together[0])
    assert not np.array_equal(signatures([texts[0]], MinHashConfig(seed=2))[0], together[0])
    empty = signatures(["", "!!"], config)
    assert (empty == SENTINEL).all()


def test_small_batches_and_blocks_give_the_same_signatures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts split across permutation blocks, batch edges and oversized texts change nothing."""
    rng = random.Random(8)
    texts = [" ".join(_random_words(rng, rng.randint(0, 80), "abcdé")) for _ in range(60)]
    expected = signatures(texts, MinHashConfig())
    monkeypatch.setattr(minhash, "_BATCH_CHARS", 64)  # most texts now exceed a batch on their own
    monkeypatch.setattr(minhash, "_BLOCK_SHINGLES", 7)
    monkeypatch.setattr(minhash, "_POWERS", {})
    assert np.array_equal(signatures(texts, MinHashConfig()), expected)


_DIGEST_SCRIPT = """
import hashlib, sys
from almanac.dedup.minhash import MinHashConfig, signatures
texts = ["The quick brown fox jumps over the lazy dog.", "Ünïcödé tëxt, “quoted” — 東京", "", "short one"]
print(hashlib.sha256(signatures(texts * 3, MinHashConfig()).tobytes()).hexdigest())
"""


def test_signatures_are_identical_across_processes() -> None:
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _DIGEST_SCRIPT],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1


def _edited(words: list[str], fraction: float, rng: random.Random, vocabulary: list[str]) -> list[str]:
    copy = list(words)
    for position in rng.sample(range(len(copy)), int(fraction * len(copy))):
        copy[position] = rng.choice(vocabulary)
    return copy


def test_signature_agreement_estimates_jaccard_without_bias() -> None:
    config = MinHashConfig()
    rng = random.Random(11)
    vocabulary = _random_words(rng, 5000, "abcdefghijklmnopqrstuvwxyz")
    pairs = []
    for fraction in (0.0, 0.01, 0.03, 0.06, 0.12, 0.25):
        for _ in range(40):
            base = rng.choices(vocabulary, k=300)
            pairs.append((" ".join(base), " ".join(_edited(base, fraction, rng, vocabulary))))
    sigs = signatures([text for pair in pairs for text in pair], config)
    exact = np.array([jaccard(shingles(a, 5), shingles(b, 5)) for a, b in pairs])
    estimate = (sigs[0::2] == sigs[1::2]).mean(axis=1)
    assert exact.min() < 0.25 and exact.max() == 1.0  # the levels really span the range
    errors = estimate - exact
    assert np.abs(errors).mean() < 0.05
    assert abs(errors.mean()) < 0.015  # standard error of the mean is ~0.003
    for level in range(6):  # no bias at any similarity level either (SE ~0.007 per level)
        assert abs(errors[40 * level : 40 * level + 40].mean()) < 0.03
    unrelated = (sigs[0] == sigs[2]).mean()
    assert unrelated < 0.05


def test_candidate_pairs_follow_bands_exactly() -> None:
    base = np.arange(8, dtype=np.uint32)
    sigs = np.stack(
        [
            base,
            np.array([0, 1, 2, 3, 90, 91, 92, 93], dtype=np.uint32),  # shares band 0 with row 0
            np.array([0, 1, 2, 80, 4, 5, 6, 81], dtype=np.uint32),  # 3 of 4 in each band: no bucket
            np.array([70, 71, 72, 73, 4, 5, 6, 7], dtype=np.uint32),  # shares band 1 with row 0
            np.array([60, 61, 62, 63, 64, 65, 66, 67], dtype=np.uint32),
        ]
    )
    assert candidate_pairs(sigs, bands=2, rows=4) == [(0, 1), (0, 3)]
    with_empty = np.vstack([sigs, np.full((2, 8), SENTINEL, dtype=np.uint32)])  # two texts without words
    assert candidate_pairs(with_empty, bands=2, rows=4) == [(0, 1), (0, 3)]
    assert candidate_pairs(sigs.astype(np.uint64), bands=2, rows=4) == [(0, 1), (0, 3)]
    # only the first bands * rows positions take part: with 2 bands of 3 rows, row 3 no longer matches
    assert candidate_pairs(sigs, bands=2, rows=3) == [(0, 1), (0, 2), (1, 2)]


def test_candidate_pairs_find_a_planted_near_duplicate_only() -> None:
    rng = random.Random(2)
    vocabulary = _random_words(rng, 3000, "abcdefghijklmnopqrstuvwxyz")
    originals = [rng.choices(vocabulary, k=400) for _ in range(30)]
    texts = [" ".join(words) for words in originals]
    texts.append(" ".join(_edited(originals[4], 0.02, rng, vocabulary)))
    sigs = signatures(texts, MinHashConfig())
    assert candidate_pairs(sigs, bands=28, rows=4) == [(4, 30)]


def test_candidate_pairs_reject_impossible_band_shapes() -> None:
    sigs = np.zeros((3, 112), dtype=np.uint32)
    with pytest.raises(ValueError, match="exceeds num_perm"):
        candidate_pairs(sigs, bands=29, rows=4)
    with pytest.raises(ValueError, match="at least 2 bands"):
        candidate_pairs(sigs, bands=1, rows=4)
    with pytest.raises(ValueError):
        candidate_pairs(sigs.astype(np.int64), bands=28, rows=4)


def test_band_candidate_probability_by_hand() -> None:
    assert band_candidate_probability(0.5, bands=1, rows=1) == pytest.approx(0.5)
    assert band_candidate_probability(0.5, bands=2, rows=2) == pytest.approx(1 - 0.75**2)  # 0.4375
    assert band_candidate_probability(0.9, bands=3, rows=2) == pytest.approx(0.993141)  # 1 - 0.19^3
    # 1 - 0.8704^28, with 0.8704 = 1 - 0.6^4
    assert band_candidate_probability(0.6, bands=28, rows=4) == pytest.approx(0.97948, abs=1e-5)
    assert band_candidate_probability(0.0, bands=28, rows=4) == 0.0
    assert band_candidate_probability(1.0, bands=28, rows=4) == 1.0


def test_optimal_bands_rows_is_what_datasketch_would_choose() -> None:
    for threshold in (0.5, 0.8):
        index = MinHashLSH(threshold=threshold, num_perm=112)
        bands, rows = optimal_bands_rows(threshold, 112, 0.5, 0.5)
        assert (bands, rows) == (index.b, index.r)
        assert bands * rows <= 112
    low, high = optimal_bands_rows(0.5, 112, 0.5, 0.5), optimal_bands_rows(0.8, 112, 0.5, 0.5)
    # the S-curve's midpoint (1/b)^(1/r) moves up with the threshold
    assert (1 / low[0]) ** (1 / low[1]) < (1 / high[0]) ** (1 / high[1])
