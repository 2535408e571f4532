"""The shape of a dataset card's prose (almanac.reports.card_text holds each style's), apart so that the
style texts can live in more than one module."""

from __future__ import annotations

from dataclasses import dataclass

NEWS_STAGES = ("ccnews_ingest", "dedup")


@dataclass(frozen=True)
class CardText:
    summary: str
    motivation: str
    collection: str
    uses: str
    out_of_scope: str
    license_note: str
    task_categories: tuple[str, ...]
    source_datasets: tuple[str, ...]
    roles: tuple[str, ...]  # LLM roles (params llm.roles) the style calls
    prompts: tuple[str, ...]  # prompt files (prompts/<name>.md) the style renders
    params_sections: tuple[str, ...]  # params.yaml sections (dotted for sub-sections) that shape the data
    stages: tuple[str, ...]  # dvc.yaml stages that produce the style (foreach stages by base name)
    fields: tuple[tuple[str, str], ...]  # (column, meaning) of the main records
    # How rows are split and dated so that none carries information from after its cut-off; every rule
    # is an invariant of `almanac check`, which a release must pass.
    split_rules: tuple[str, ...] = ()
