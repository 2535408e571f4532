"""The OpenForesight filter stages with a real-looking LLM: leakage, question dedup, dates, answer type."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.parallel import RayConfig
from almanac.foresight.generate import QgenConfig, generate_questions
from almanac.foresight.leakage import LeakageConfig, fix_leakage
from almanac.foresight.question_dedup import QuestionDedupConfig, deduplicate_questions
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from tests.foresight_stage_llm import ARTICLE_TEXT, article, cache, llm_server, question_block
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import Reply

__all__ = ["cache", "llm_server"]  # pytest fixtures used by name


def test_leakage_rewrite_then_rescan_drops_what_the_editor_missed(llm_server: Any, cache: LLMCache) -> None:
    def script(prompt: str, seen: int) -> Reply:
        if "Which city" in prompt:  # a good rewrite
            return Reply(
                text="<edited><leak_found>yes</leak_found><background>Question start date: 2025-05-01. Several cities have bid.</background><resolution_criteria>Source of truth: the federation's announcement. Accepted answer format: a city name.</resolution_criteria></edited>"
            )
        return Reply(text="<edited><leak_found>no</leak_found></edited>")  # misses the alias leak

    _, llm = llm_server(script)
    generator, _ = llm_server(
        lambda prompt, seen: Reply(
            text=question_block(
                "Which city will host the 2027 Games by June 10, 2025?",
                "Brennford",
                "Brennford leads the race.",
            )
            if "(city)" in prompt
            else question_block(
                "Who will preside over the federation by June 10, 2025?",
                "Ana Whitlock",
                "Whitlock is expected to stay on.",
            ).replace("String (Location)", "String (Name)")
        )
    )
    table = pa.Table.from_pylist([article("city"), article("person")])
    candidates, _ = generate_questions(
        table,
        QgenConfig(),
        LLMConfig(roles={"generator": remote_role(generator)}, prompts_dir=str(PROMPTS_DIR)),
        cache,
    )
    fixed, ledger = fix_leakage(candidates, LeakageConfig(), llm, cache)
    ledger.check_balance()
    (row,) = fixed.to_pylist()
    assert (
        row["answer"] == "Brennford"
        and row["leakage_edited"] is True
        and "Brennford" not in row["background"]
    )
    assert row["question_title"] == "Which city will host the 2027 Games by June 10, 2025?"  # untouched
    assert ledger.rejected_by_reason == {"answer_leak_alias": 1}  # "Whitlock" = surname of the answer


def test_question_dedup_keeps_the_earliest_report_of_one_event() -> None:
    from almanac.foresight.records import questions_table

    def row(key: str, day: int, title: str, answer: str) -> dict[str, Any]:
        base = article(key, day)
        return {
            "question_id": content_id(key, title, answer), "article_id": base["id"], "month": "2025-05",
            "url": base["url"], "article_title": base["title"], "article_publish_date": base["publish_date"],
            "news_source": "news.example", "candidate_index": 0, "question_title": title, "background": "b",
            "resolution_criteria": "r", "answer": answer, "answer_type": "string (location)",
            "question_start_date_text": "2025-05-01", "resolution_date_text": "2025-06-10",
            "generator_model": "g", "generator_prompt": "1:h", "candidate_problem": None,
            "validator_model": None, "leakage_edited": None,
            "answer_class": None, "question_start_date": None, "resolution_date": None,
            "resolution_date_clamped": None, "question_start_date_clamped": None,
            "question_start_date_text_precision": None, "resolution_date_text_precision": None,
            "cross_question_leak": None, "split": None,
        }  # fmt: skip

    title = "Which city will be chosen to host the 2027 Northern Games by June 10, 2025?"
    table = questions_table([
        row("late", 22, title, "Brennford"),
        row("early", 20, title.replace("chosen", "selected"), "Brennford"),
        row("other", 21, "Who will be appointed chief executive of Vantor Energy by June 30, 2025?", "Rafael Mendonça"),
    ])  # fmt: skip
    kept, ledger = deduplicate_questions(table, QuestionDedupConfig(), RayConfig(executor="serial"))
    ledger.check_balance()
    assert sorted(r["article_id"] for r in kept.to_pylist()) == sorted(
        [content_id("early"), content_id("other")]
    )
    assert ledger.rejects[0].reason == "near_duplicate_question" and ledger.rejects[
        0
    ].related_id == content_id("early", title.replace("chosen", "selected"), "Brennford")


def _candidate(
    answer: str, answer_type: str, start: str = "2025-05-01", resolution: str = "2025-06-10"
) -> dict[str, Any]:
    from almanac.foresight.records import LATER_COLUMNS

    base = article(answer, day=20)
    return {
        "question_id": content_id(answer), "article_id": base["id"], "month": "2025-05", "url": base["url"],
        "article_title": base["title"], "article_publish_date": base["publish_date"],
        "news_source": "news.example", "candidate_index": 0,
        "question_title": "Which city will host the 2027 Games by June 10, 2025?",
        "background": "Question start date: 2025-05-01.", "resolution_criteria": "Source of truth: the federation.",
        "answer": answer, "answer_type": answer_type, "question_start_date_text": start,
        "resolution_date_text": resolution, "generator_model": "g", "generator_prompt": "1:h",
        "candidate_problem": None, **LATER_COLUMNS,
    }  # fmt: skip


def test_dates_clamp_reject_and_repair(llm_server: Any, cache: LLMCache) -> None:
    from almanac.foresight.dates import DatesConfig, check_dates
    from almanac.foresight.records import questions_table

    def script(prompt: str, seen: int) -> Reply:
        if "Knowable" in prompt:  # the answer could be inferred before the month began
            return Reply(
                text="<evidence>Announced in April.</evidence><earliest_date>2025-04-15</earliest_date>"
            )
        if "Obvious" in prompt:  # ... and even before the question opened
            return Reply(
                text="<evidence>Known since March.</evidence><earliest_date>2025-03-01</earliest_date>"
            )
        return Reply(text="<evidence>Only on the day.</evidence><earliest_date>2025-05-18</earliest_date>")

    _, llm = llm_server(script)
    rows = [
        _candidate("Brennford", "string (location)"),  # resolution 06-10 after the article (05-20): clamped
        _candidate("Knowable", "string (location)", start="2025-04-01"),
        _candidate("Obvious", "string (location)"),
        _candidate("Undated", "string (location)", resolution="sometime in June"),
        _candidate("Late start", "string (location)", start="2025-05-25"),  # clamped to 05-19
        _candidate("Monthly", "string (location)", resolution="by June 2025"),  # 06-30, clamped to 05-20
        _candidate("Too early", "string (location)", resolution="April 2025"),  # 04-30 < article 05-20
    ]
    table = questions_table(rows)
    articles = {row["article_id"]: {"text": ARTICLE_TEXT} for row in rows}
    plain, ledger = check_dates(table, articles, "2025-05", DatesConfig(), llm, cache)
    ledger.check_balance()
    assert ledger.rejected_by_reason == {"resolution_before_article": 1, "unparseable_resolution_date": 1}
    by_answer = {row["answer"]: row for row in plain.to_pylist()}
    assert (
        str(by_answer["Brennford"]["resolution_date"]) == "2025-05-20"
        and by_answer["Brennford"]["resolution_date_clamped"]
    )
    late = by_answer["Late start"]
    assert str(late["question_start_date"]) == "2025-05-19" and late["question_start_date_clamped"]
    monthly = by_answer["Monthly"]
    assert (
        monthly["resolution_date_text_precision"] == "month"
        and str(monthly["resolution_date"]) == "2025-05-20"
    )
    assert ledger.extra["start_dates_clamped"] == 1 and ledger.extra["partial_deadlines_kept"] == 1
    strict, ledger = check_dates(
        table, articles, "2025-05", DatesConfig(partial_deadline="reject"), llm, cache
    )
    ledger.check_balance()
    assert ledger.rejected_by_reason == {"partial_resolution_date": 2, "unparseable_resolution_date": 1}
    assert "Monthly" not in strict.column("answer").to_pylist()
    repaired, ledger = check_dates(table, articles, "2025-05", DatesConfig(date_repair=True), llm, cache)
    ledger.check_balance()
    assert ledger.rejected_by_reason == {
        "resolution_before_article": 1,
        "unparseable_resolution_date": 1,
        "repaired_before_month": 1,
        "answer_known_at_start": 2,  # "Obvious", and "Late start" (repaired 05-18, start 05-19)
    }
    assert ledger.extra["date_repair_calls"] == 5  # only questions that passed the plain checks are asked
    kept = {row["answer"]: row for row in repaired.to_pylist()}
    assert sorted(kept) == ["Brennford", "Monthly"]
    # The repaired day (05-18) is noted but does not move the deadline before the article (05-20).
    assert str(kept["Brennford"]["resolution_date"]) == "2025-05-20"


def test_answer_type_filter_normalises_keeps_and_drops() -> None:
    from almanac.foresight.answer_filter import filter_answer_types
    from almanac.foresight.answer_types import AnswerTypeConfig
    from almanac.foresight.records import questions_table

    rows = [
        _candidate("Whitlock", "String(Name)"),  # the surname of "Ana Whitlock" in the article
        _candidate("14", "Numeric (Integer)"),
        _candidate("Ana Whitlock", "string"),  # vague type: classified from the article by NER
        _candidate("Brennford", "string (name)"),  # a city, declared a person: no full name anywhere
        _candidate("Oldmere", "string (country)"),  # not a country
    ]
    texts = {row["article_id"]: ARTICLE_TEXT for row in rows}
    kept, ledger = filter_answer_types(questions_table(rows), texts, AnswerTypeConfig())
    ledger.check_balance()
    assert ledger.rejected_by_reason == {"answer_class_numeric": 1, "answer_type_mismatch": 2}
    details = sorted(r.detail for r in ledger.rejects if r.reason == "answer_type_mismatch")
    assert details[0].startswith("declared string (country): 'Oldmere' is not in the country list")
    assert "'Brennford' is not a person" in details[1]
    by_answer = {row["answer"]: row for row in kept.to_pylist()}
    assert (
        by_answer["Whitlock"]["answer_type"] == "string (name)"
        and by_answer["Whitlock"]["answer_class"] == "name"
    )
    assert (
        by_answer["Ana Whitlock"]["answer_class"] == "name"
        and by_answer["Ana Whitlock"]["answer_type"] == "string"
    )
