"""A JSON-lines protocol so any agent process can drive the replay.

One request per line, one response per line. Requests: ``{"action": ...}`` with

- ``state``: today, open questions (public fields), resolved questions (with answer and score), finished
- ``submit_forecast``: ``question_id``, ``outcomes`` (``[[name, p], ...]`` or ``{name: p}``)
- ``next_day``: score today and advance; the response says what changed
- ``search``: ``query``, optional ``k``; chunks available up to today
- ``list_days`` / ``read_day`` (``day``: ``YYYY-MM-DD``): the article folders up to today

Responses are ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``; a refused action (a day after
today, an invalid forecast) is an error response, never the end of the simulation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import IO, Any

from almanac.futuresim.simulate.environment import Simulation
from almanac.futuresim.simulate.scoring import ForecastError
from almanac.futuresim.simulate.world import FutureReadError

MAX_REQUEST_CHARS = 1 << 20


def handle(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    action = request.get("action")
    handler = _HANDLERS.get(str(action))
    if handler is None:
        return {"ok": False, "error": f"unknown action {action!r}; one of {sorted(_HANDLERS)}"}
    try:
        return {"ok": True, **handler(simulation, request)}
    except (ForecastError, FutureReadError, KeyError, TypeError, ValueError) as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def serve(simulation: Simulation, requests: IO[str], responses: IO[str]) -> None:
    """Answer requests until the simulation has finished or the agent closes its side."""
    while not simulation.finished:
        line = requests.readline(MAX_REQUEST_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_REQUEST_CHARS:
            response: dict[str, Any] = {"ok": False, "error": f"request over {MAX_REQUEST_CHARS} characters"}
            requests.readline()  # the rest of the over-long line
        elif not line.strip():
            continue
        else:
            try:
                request = json.loads(line)
            except json.JSONDecodeError as error:
                response = {"ok": False, "error": f"not JSON: {error}"}
            else:
                response = (
                    handle(simulation, request)
                    if isinstance(request, dict)
                    else {"ok": False, "error": "a request is a JSON object"}
                )
        responses.write(json.dumps(response, sort_keys=True, default=str) + "\n")
        responses.flush()


def _state(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    del request
    return {
        "today": simulation.today.isoformat(),
        "finished": simulation.finished,
        "open": [
            {**question, "forecast": simulation.held_forecast(question["question_id"])}
            for question in simulation.open_questions()
        ],
        "resolved": simulation.resolved_questions(),
    }


def _submit(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    simulation.submit_forecast(str(request["question_id"]), request["outcomes"])
    return {"question_id": request["question_id"]}


def _next_day(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    del request
    return simulation.next_day()


def _search(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    hits = simulation.search(str(request["query"]), int(request.get("k", 5)))
    return {
        "hits": [
            {
                "rank": hit.rank,
                "chunk_id": hit.chunk_id,
                "url": hit.url,
                "available_date": hit.available_date.isoformat(),
                "text": hit.text,
            }
            for hit in hits
        ]
    }


def _list_days(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    del request
    return {"days": [day.isoformat() for day in simulation.list_days()]}


def _read_day(simulation: Simulation, request: dict[str, Any]) -> dict[str, Any]:
    return {"articles": simulation.read_day(date.fromisoformat(str(request["day"])))}


_HANDLERS: dict[str, Callable[[Simulation, dict[str, Any]], dict[str, Any]]] = {
    "state": _state,
    "submit_forecast": _submit,
    "next_day": _next_day,
    "search": _search,
    "list_days": _list_days,
    "read_day": _read_day,
}
