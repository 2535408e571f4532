"""What an agent may read on a simulated day: the corpus's day folders and the search, both capped.

The corpus is read from its day folders in either layout, the published ``articles/YYYY/MM/DD/`` or the
build's ``articles/YYYY-MM/DD/``; a folder's day is the last day its articles may have been published
(their *available* day). Every read names the day it is made on and refuses anything later: a folder
after that day is not listed and cannot be opened, an article whose own ``available_date`` is later is
withheld (a misfiled article cannot slip through its folder), and the search's upper bound is that day.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from almanac.futuresim.corpus import ARTICLE_FILE
from almanac.futuresim.search import FutureLeakError, SearchHit, search_chunks

Search = Callable[[str, date, int], list[SearchHit]]  # (query, last day, k) -> hits
MAX_K = 50  # chunks per search call, as a search tool would cap it
MAX_ARTICLE_BYTES = 4 << 20  # one day file read in full is capped; a larger one is refused


class FutureReadError(PermissionError):
    """An action asked for something dated after the simulated day."""


@dataclass(frozen=True)
class World:
    """The article folders (``articles_root``) and the chunk index (``index_root``) of the corpus."""

    articles_root: Path
    index_root: Path | None

    def day_file(self, day: date) -> Path | None:
        for folder in (
            self.articles_root / f"{day.year:04d}" / f"{day.month:02d}" / f"{day.day:02d}",
            self.articles_root / f"{day.year:04d}-{day.month:02d}" / f"{day.day:02d}",
        ):
            path = folder / ARTICLE_FILE
            if path.is_file() and not path.is_symlink():
                return path
        return None

    def days(self) -> Iterator[date]:
        """Every day with a folder, in order (both layouts)."""
        found: set[date] = set()
        for path in self.articles_root.glob(f"*/*/{ARTICLE_FILE}"):
            found.update(_folder_day(path.parent.parent.name, "01", path.parent.name))
        for path in self.articles_root.glob(f"*/*/*/{ARTICLE_FILE}"):
            found.update(
                _folder_day(path.parent.parent.parent.name, path.parent.parent.name, path.parent.name)
            )
        yield from sorted(found)


def _folder_day(year_or_month: str, month: str, day: str) -> Iterator[date]:
    try:
        if "-" in year_or_month:
            year, mon = year_or_month.split("-")
            yield date(int(year), int(mon), int(day))
        else:
            yield date(int(year_or_month), int(month), int(day))
    except ValueError:
        return


class CappedWorld:
    """The world as readable on ``today``; the environment moves ``today`` forward, nothing else does."""

    def __init__(self, world: World, today: date, search: Search | None = None) -> None:
        self._world = world
        self._today = today
        index = world.index_root
        self._search = search or (
            None if index is None else (lambda query, end, k: search_chunks(index, query, None, end, k))
        )

    @property
    def today(self) -> date:
        return self._today

    def advance(self, day: date) -> None:
        if day < self._today:
            raise ValueError(f"the simulation cannot go back from {self._today} to {day}")
        self._today = day

    def list_days(self) -> list[date]:
        return [day for day in self._world.days() if day <= self._today]

    def read_day(self, day: date) -> list[dict[str, Any]]:
        """The articles that became available on ``day`` (refused after today)."""
        if day > self._today:
            raise FutureReadError(f"{day} is after the simulated day {self._today}")
        path = self._world.day_file(day)
        if path is None:
            return []
        if path.stat().st_size > MAX_ARTICLE_BYTES:
            raise FutureReadError(f"{path} is over {MAX_ARTICLE_BYTES} bytes: use search")
        articles = []
        for line in path.read_text(encoding="utf-8").splitlines():
            article = json.loads(line) if line.strip() else None
            if article is not None and _available(article) <= self._today:
                articles.append(article)
        return articles

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        """The ``k`` best chunks available up to today."""
        if self._search is None:
            raise FutureReadError("this simulation has no search index")
        hits = self._search(query, self._today, max(1, min(int(k), MAX_K)))
        late = [hit for hit in hits if hit.available_date > self._today]
        if late:  # the search caps in its query; this is the environment's own guard
            raise FutureLeakError(
                f"search returned a chunk available {late[0].available_date} > {self._today}"
            )
        return hits


def _available(article: dict[str, Any]) -> date:
    raw = str(article.get("available_date") or "")
    try:
        return date.fromisoformat(raw[:10])
    except ValueError:
        return date.max  # undated: never shown
