"""Collapse near-duplicate questions across articles (one event reported by several outlets)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from almanac.core.parallel import RayConfig
from almanac.core.rejects import StageLedger
from almanac.core.step import apply_group_step
from almanac.dedup.near_duplicates import DedupConfig, cluster_step, find_near_duplicates
from almanac.foresight.records import article_source, question_id, questions_table

STAGE = "foresight_question_dedup"


@dataclass(frozen=True)
class QuestionDedupConfig:
    # Titles are ~15 words: word bigrams, not the 5-grams used for whole articles.
    ngram: int = 2
    num_perm: int = 112
    bands: int = 28
    rows: int = 4
    threshold: float = 0.5
    seed: int = 1

    @property
    def dedup(self) -> DedupConfig:
        return DedupConfig(
            ngram=self.ngram,
            num_perm=self.num_perm,
            bands=self.bands,
            rows=self.rows,
            threshold=self.threshold,
            seed=self.seed,
        )


def question_text(title: str, answer: str) -> str:
    return f"{title} answer {answer}"


def deduplicate_questions(
    questions: pa.Table, config: QuestionDedupConfig, ray_config: RayConfig
) -> tuple[pa.Table, StageLedger]:
    """Keep the earliest question of each cluster (by article publication, then id), across months."""
    ledger = StageLedger(STAGE)
    rows = questions.to_pylist()
    texts = [question_text(row["question_title"], row["answer"]) for row in rows]
    keys: list[tuple[object, ...]] = [(row["article_publish_date"], row["question_id"]) for row in rows]
    found = find_near_duplicates(texts, keys, config.dedup, ray_config)
    ids = [question_id(row) for row in rows]
    sources = [article_source(row) for row in rows]
    clusters = cluster_step(found.duplicates, ids, sources, "near_duplicate_question")
    kept = [rows[index] for index in apply_group_step(range(len(rows)), clusters, ledger)]
    ledger.extra.update({"candidate_pairs": found.candidate_pairs, "verified_pairs": found.verified_pairs})
    return questions_table(kept), ledger
