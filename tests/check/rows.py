"""Hand-made released rows that hold every invariant; each test breaks one of them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any


def question(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_id": "q-train-1",
        "question_title": "Who will be elected mayor of Port Alder by April 30, 2025?",
        "background": "Question start date: 2025-04-01. Port Alder votes for a new mayor in April.",
        "resolution_criteria": "Resolves on the official result published by April 30, 2025.",
        "answer": "Dana Whitcombe",
        "answer_type": "string (name)",
        "answer_class": "name",
        "question_start_date": date(2025, 4, 1),
        "resolution_date": date(2025, 4, 20),
        "url": "https://news.example/2025/04/20/mayor",
        "article_title": "Dana Whitcombe elected mayor",
        "article_publish_date": datetime(2025, 4, 20, tzinfo=UTC),
        "news_source": "news.example",
        "split": "train",
        "cross_question_leak": False,
        "generator_model": "m1",
        "validator_model": "m2",
        "_split_dir": "train",
    }
    row.update(changes)
    return row


def article(url: str, published: date, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "url": url,
        "publish_date": datetime(published.year, published.month, published.day, tzinfo=UTC),
        "crawl_date": datetime(published.year, published.month, published.day, 6, tzinfo=UTC),
        "date_precision": "day",
        "date_source": "html_meta",
    }
    row.update(changes)
    return row


def event(event_id: str, text: str, when: str, precision: str = "day", doc: str = "doc-1") -> dict[str, Any]:
    return {
        "event_id": event_id,
        "position": 0,
        "text": text,
        "date": when,
        "date_precision": precision,
        "day": date.fromisoformat(when) if precision == "day" else None,
        "event_type": "",
        "subject": "",
        "object": "",
        "location": "",
        "time": "",
        "doc_id": doc,
    }


# One complex event's timeline: two April events, one in May.
TIMELINE = [
    event("e1", "Estmark proposes a timber tariff.", "2025-04-02"),
    event("e2", "Varnland protests the tariff.", "2025-04-10"),
    event("e3", "The trade council opens a hearing.", "2025-04-20"),
    event("e4", "The council rules against Estmark.", "2025-05-15"),
]


def sample(task: str = "ltf", **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "sample_id": f"{task}-1",
        "task": task,
        "split": "train",
        "ce_id": "ce-1",
        "origin": "wcep",
        "ce_title": "Timber tariff dispute",
        "topic": "Business and economy",
        "cut_date": date(2025, 4, 10),
        "background": [TIMELINE[0]],
        "_split_dir": "train",
    }
    if task in ("stf", "ltf"):
        row["targets"] = [TIMELINE[1], TIMELINE[2]] if task == "ltf" else [TIMELINE[1]]
        row["targets_trimmed"] = 1 if task == "ltf" else 0
    if task == "mcnc":
        row.update(
            target=TIMELINE[1],
            options=["Nobody reacts.", TIMELINE[1]["text"], "Estmark withdraws.", "A storm hits."],
            answer_index=1,
            answer_label="B",
        )
    if task == "vqa":
        row.update(candidate=TIMELINE[1]["text"], label="Yes", mcnc_sample_id="mcnc-1")
    row.update(changes)
    return row
