"""A fast synthetic CC-News crawl for the 1M and 10M dedup runs: numpy over whole batches of articles.

Each crawl month is written by its own process, ``BATCH`` articles at a time (nothing holds the corpus),
with a generator seeded by ``(seed, month index, batch index)``, so the crawl is the same for the same
arguments whatever the number of processes. Per batch:

- word ids of every article at once (a Zipf draw over a fixed vocabulary, ``WORDS`` words an article),
  turned into one UTF-8 buffer by gathering the words' bytes from a padded byte matrix, and into an
  Arrow string column by offsets: no Python string per word;
- ``PLANTED`` of the articles are near-duplicates of an earlier original of the same batch, with a
  share of ``EDIT`` of their words replaced at random (exact 5-gram shingle Jaccard ~0.75-0.97, above
  the 0.6 threshold); ``EXACT`` are re-crawls (same URL and text, so the same id); ``EARLIER`` are
  published in the month before their crawl month;
- every planted pair ``(copy id, original id)`` goes to ``planted/<crawl month>.parquet``, so the run
  can report recall (a pair is found when one of its two articles is rejected as a near duplicate) and
  false removals (near-duplicate rejects that are not in a planted pair).
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.ids import content_id
from almanac.core.io import PARQUET_COMPRESSION
from almanac.core.schemas import ARTICLE_SCHEMA
from bench.dedup_scale import Writer

BATCH = 20_000
WORDS = (250, 351)  # words per article, ~300 as in the side-by-side corpus
VOCABULARY = 50_000
PLANTED = 0.30
EXACT = 0.01
EARLIER = 0.02
EDIT = (0.005, 0.03)  # share of a planted copy's words replaced
PLANTED_SCHEMA = pa.schema([("copy_id", pa.string()), ("original_id", pa.string())])


Words = tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int32]]


def vocabulary(seed: int) -> Words:
    """Words as a zero-padded 16-byte matrix (each word with a leading space), their byte lengths, and a
    draw table: word ids laid out in proportion to their Zipf weights, so a draw is one integer index."""
    rng = np.random.default_rng([seed, 7])
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", dtype=np.uint8)
    lengths = rng.integers(2, 11, VOCABULARY * 2)
    matrix = np.zeros((len(lengths), 16), dtype=np.uint8)
    matrix[:, 0] = ord(" ")
    matrix[:, 1:11] = letters[rng.integers(0, 26, (len(lengths), 10))]
    matrix[np.arange(16)[None, :] > lengths[:, None]] = 0
    _, first = np.unique(matrix, axis=0, return_index=True)  # distinct words, in draw order
    chosen = np.sort(first)[:VOCABULARY]
    matrix, sizes = matrix[chosen], lengths[chosen] + 1
    cumulative = np.cumsum(1.0 / (np.arange(len(sizes)) + 2.7) ** 1.07)
    grid = (np.arange(_DRAW_TABLE) + 0.5) / _DRAW_TABLE
    table = np.searchsorted(cumulative / cumulative[-1], grid).astype(np.int32)
    return matrix, sizes, table


_DRAW_TABLE = 1 << 22


def _ranges(starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Concatenated ``arange(start, start + length)`` of every pair, without a loop."""
    total = int(lengths.sum())
    shifts = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    ranges: npt.NDArray[np.int64] = np.arange(total, dtype=np.int64) + shifts
    return ranges


def texts_of(
    words: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    matrix: npt.NDArray[np.uint8],
    sizes: npt.NDArray[np.int64],
) -> pa.StringArray:
    """The articles (``counts`` consecutive word ids each) as one Arrow string column: the words' padded
    rows gathered, each article's leading space and the padding dropped by one mask."""
    gathered = matrix.view(np.uint64)[words]  # (words, 2): 16 bytes a word
    first_word = np.cumsum(counts) - counts
    gathered[first_word, 0] &= ~np.uint64(0xFF)  # the leading space of each article (little-endian)
    flat = gathered.view(np.uint8).ravel()
    data = flat[flat != 0]
    lengths = np.add.reduceat(sizes[words], first_word) - 1
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    return pa.StringArray.from_buffers(
        len(counts), pa.py_buffer(offsets.tobytes()), pa.py_buffer(data.tobytes())
    )


def make_batch(
    crawl: str, month_index: int, batch: int, size: int, seed: int, first_serial: int, words_table: Words
) -> tuple[pa.Table, pa.Table]:
    """One batch of articles (ARTICLE_SCHEMA) and its planted pairs."""
    matrix, sizes, table = words_table
    rng = np.random.default_rng([seed, month_index, batch])
    kind = rng.random(size)
    kind[: max(1, size // 100)] = 1.0  # the first articles are originals, so every copy has a source
    copies = np.flatnonzero(kind < PLANTED + EXACT)
    exact = kind[copies] >= PLANTED
    originals = np.flatnonzero(kind >= PLANTED + EXACT)
    # each copy's original: one drawn among the originals before it in the batch
    before = np.searchsorted(originals, copies)
    source = originals[(rng.random(len(copies)) * before).astype(np.int64)]
    counts = rng.integers(WORDS[0], WORDS[1], size)
    counts[copies] = counts[source]
    ends = np.cumsum(counts)
    starts = ends - counts
    words = table[rng.integers(0, _DRAW_TABLE, int(ends[-1]))].astype(np.int64)
    copied = _ranges(starts[copies], counts[copies])
    words[copied] = words[_ranges(starts[source], counts[source])]
    rate = np.where(exact, 0.0, rng.uniform(EDIT[0], EDIT[1], len(copies)))
    replace = rng.random(len(copied)) < np.repeat(rate, counts[copies])
    words[copied[replace]] = rng.integers(0, len(sizes), int(replace.sum()))
    text = texts_of(words, counts, matrix, sizes)
    serial = first_serial + np.arange(size, dtype=np.int64)
    url_serial = serial.copy()
    url_serial[copies[exact]] = serial[source[exact]]  # a re-crawl: same URL, same text
    urls = [f"https://site{number % 997}.example/{number}" for number in url_serial.tolist()]
    texts = text.to_pylist()
    ids = [content_id(url, body) for url, body in zip(urls, texts, strict=True)]
    del texts
    year, month = (int(part) for part in crawl.split("-"))
    start = np.datetime64(f"{year:04d}-{month:02d}-01T00:00:00", "s")
    offset = rng.integers(0, 28, size) * 86400 + rng.integers(0, 86400, size)
    earlier = rng.random(size) < EARLIER  # published up to 20 days before the crawl month
    offset[earlier] = -rng.integers(1, 21 * 86400, int(earlier.sum()))
    published = start + offset.astype("timedelta64[s]")
    publish_month = np.datetime_as_string(published.astype("datetime64[M]"), unit="M")
    domains = [f"site{number % 997}.example" for number in url_serial.tolist()]
    columns = {
        "id": pa.array(ids, pa.string()),
        "url": pa.array(urls, pa.string()),
        "source_domain": pa.array(domains, pa.string()),
        "title": pa.nulls(size, pa.string()),
        "text": text,
        "publish_date": pa.array(published, ARTICLE_SCHEMA.field("publish_date").type),
        "publish_month": pa.array(publish_month.tolist(), pa.string()),
        "date_source": pa.array(["html_meta"] * size, pa.string()),
        "date_precision": pa.array(["day"] * size, pa.string()),
        "language": pa.array(["en"] * size, pa.string()),
        "word_count": pa.array(counts.astype(np.int32)),
        "crawl_date": pa.nulls(size, ARTICLE_SCHEMA.field("crawl_date").type),
        "source_format": pa.array(["warc"] * size, pa.string()),
        "source_file": pa.array([f"CC-NEWS-{crawl}.warc.gz"] * size, pa.string()),
        "source_offset": pa.array(serial),
        "charset": pa.nulls(size, pa.string()),
        "truncated": pa.array(np.zeros(size, dtype=bool)),
    }
    table = pa.table({name: columns[name] for name in ARTICLE_SCHEMA.names}, schema=ARTICLE_SCHEMA)
    id_column = table.column("id")
    planted = pa.table(
        {
            "copy_id": id_column.take(pa.array(copies[~exact])),
            "original_id": id_column.take(pa.array(source[~exact])),
        },
        schema=PLANTED_SCHEMA,
    )
    return table, planted


def make_month(root: Path, docs: int, crawl: str, month_index: int, seed: int, first_serial: int) -> None:
    words_table = vocabulary(seed)
    writer = Writer(root)
    planted_path = root / "planted" / f"{crawl}.parquet"
    planted_path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(planted_path, PLANTED_SCHEMA, compression=PARQUET_COMPRESSION) as planted_out:
        for batch, low in enumerate(range(0, docs, BATCH)):
            size = min(BATCH, docs - low)
            table, planted = make_batch(
                crawl, month_index, batch, size, seed, first_serial + low, words_table
            )
            writer.write_table(crawl, table)
            planted_out.write_table(planted)
    writer.close()


def _month_task(task: tuple[Path, int, str, int, int, int]) -> None:
    make_month(*task)


def make_crawl(root: Path, docs: int, months: list[str], seed: int, processes: int) -> None:
    """``docs`` articles split evenly over ``months``, one process per month, ``processes`` at once."""
    per_month = docs // len(months)
    tasks = [(root, per_month, crawl, index, seed, index * per_month) for index, crawl in enumerate(months)]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_month_task, tasks)
