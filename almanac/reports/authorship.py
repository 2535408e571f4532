"""Who wrote the released questions, said plainly, and one question with its article to show it.

The released rows name each role's model (``generator_model``, ``validator_model``) but not its backend,
and the offline backend's "model" is a spaCy pipeline name that reads like any other model. The backend
comes from ``params.yaml: llm.roles``, and is trusted for a role only where the rows name exactly the
model params give it: a role's settings are params of the stages that call it, so in a built repository
the two agree, and where they do not (params edited, data not rebuilt) the backend is "unknown" rather
than guessed. The offline sample must never read as model-written: its questions are rule templates.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import pyarrow as pa

from almanac.llm.config import parse_llm_config
from almanac.reports.model import Table
from almanac.reports.styles import TableKey

OFFLINE = "offline"
UNKNOWN = "unknown"
WRITER = "generator"  # the role that writes the questions
QUESTION_ROLES = (WRITER, "validator", "editor")  # writes, checks and picks, rewrites leaking spans
# The roles whose model every released row names, by column; the editor's is not recorded in the rows.
ROW_COLUMNS = {"generator": "generator_model", "validator": "validator_model"}


@dataclass(frozen=True)
class RoleAuthor:
    role: str
    backend: str  # "offline", "openai", or "unknown" when the rows name another model than params
    model: str  # the model(s) the rows name, or params' model when the rows name none
    in_rows: bool  # the rows name this role's model (False: taken from params alone)


def models_in_rows(tables: Mapping[TableKey, pa.Table]) -> dict[str, list[str]]:
    """Each recorded role's distinct model names over every released row, sorted."""
    found: dict[str, set[str]] = {role: set() for role in ROW_COLUMNS}
    for table in tables.values():
        for role, column in ROW_COLUMNS.items():
            if column in table.column_names:
                found[role].update(str(value) for value in table.column(column).to_pylist() if value)
    return {role: sorted(models) for role, models in found.items()}


def role_authors(
    params: Mapping[str, Any], roles: Sequence[str], rows: Mapping[str, Collection[str]]
) -> tuple[RoleAuthor, ...]:
    """Backend and model of each of ``roles``: params' settings, checked against the models in ``rows``."""
    configured = parse_llm_config(params).roles
    authors = []
    for role in roles:
        config, named = configured.get(role), sorted(rows.get(role, ()))
        if config is None or (named and named != [config.model]):
            authors.append(RoleAuthor(role, UNKNOWN, ", ".join(named), in_rows=bool(named)))
        else:
            authors.append(RoleAuthor(role, config.backend, config.model, in_rows=bool(named)))
    return tuple(authors)


def authorship_statement(
    authors: Sequence[RoleAuthor], writer: str = WRITER, records: str = "questions", sources: str = "articles"
) -> str:
    """One paragraph: who wrote the ``records`` (the ``writer`` role), then every role's backend and model."""
    author = next(author for author in authors if author.role == writer)
    if author.backend == OFFLINE:
        lead = (
            f"**These {records} were not written by a language model.** The offline template backend "
            f"(`backend: offline`: fixed rules over the spaCy pipeline `{author.model}`) filled them in "
            f"from the {sources}. They are templates for testing the pipeline, not model-written {records}, "
            f"and say nothing about the {records} a model would write."
        )
    elif author.backend == UNKNOWN:
        lead = (
            f"**Which backend wrote these {records} is not recorded.** The rows name a model, not its "
            f"backend, and `params.yaml: llm.roles.{writer}` does not give that model; rebuild "
            "(`dvc repro`) so that the data and the params agree."
        )
    else:
        lead = f"The {records} were written by the model `{author.model}` (`backend: {author.backend}`)."
    return f"{lead} Roles: {'; '.join(_role_line(role) for role in authors)}."


def _role_line(author: RoleAuthor) -> str:
    if author.backend != UNKNOWN:
        source = "" if author.in_rows else " (from params.yaml; the rows do not name it)"
        return f"{author.role}: {author.backend}, `{author.model}`{source}"
    if author.in_rows:
        return f"{author.role}: backend unknown, the rows name `{author.model}`"
    return f"{author.role}: backend unknown, not in params.yaml and not named in the rows"


EXAMPLE_FIELDS = (
    ("Article title", "article_title"),
    ("URL", "url"),
    ("Published", "article_publish_date"),
    ("News source", "news_source"),
    ("Question", "question_title"),
    ("Answer", "answer"),
    ("Question start date", "question_start_date"),
    ("Resolution date", "resolution_date"),
)


def title_states_answer(row: Mapping[str, Any]) -> bool:
    """The leakage scan of ``almanac check`` run on the article title: does it state the answer?"""
    from almanac.check.text import find_answer, is_organisation, is_person

    answer, title = row.get("answer"), row.get("article_title")
    if not isinstance(answer, str) or not isinstance(title, str) or not answer.strip():
        return False
    answer_class, answer_type = row.get("answer_class"), row.get("answer_type")
    person = is_person(answer_class, answer_type)
    organisation = is_organisation(answer_class, answer_type)
    return find_answer(answer, title, person, organisation) is not None


WITHHELD_TITLE = "(withheld here: the title states the answer)"


def example_question(tables: Mapping[TableKey, pa.Table]) -> Table | None:
    """A released question as a Field / Value table, its article first; None when there is none.

    The one with the smallest ``question_id`` (stable across rebuilds and re-splits) among those whose
    article title passes the title leakage scan: a title is provenance, never shown to a forecaster, and
    often reports the outcome, which an example shown beside its question must not give away. When every
    title states its answer, the smallest id is shown with its title withheld.
    """
    rows: list[dict[str, Any]] = []
    for key, table in tables.items():
        if "question_id" not in table.column_names or not table.num_rows:
            continue
        rows.extend({**row, "split": key.split} for row in table.to_pylist())
    if not rows:
        return None
    rows.sort(key=lambda row: str(row["question_id"]))
    best = next((row for row in rows if not title_states_answer(row)), None)
    if best is None:
        best = {**rows[0], "article_title": WITHHELD_TITLE}
    cells = tuple((label, _cell(best.get(column))) for label, column in EXAMPLE_FIELDS)
    return Table(
        "Example question",
        ("Field", "Value"),
        cells,
        f"One released question (`{best['question_id']}`, {best['split']} split) with the article it was "
        "written from, as a reader of this release sees it; chosen so that its article title does not "
        "state the answer (the title leakage scan of `almanac check`).",
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return " ".join(str(value).split())  # one line: a newline would end the Markdown table row
