"""The complex-event pipeline's LLM tasks, one module each: item builder, reply parser, offline answer.

Importing this package registers all eight with :mod:`almanac.llm.registry`. Shared pieces: the reply
records (``replies``), the timeline text format (``timelines``), item helpers (``items``), and the
offline baseline's date and clause rules (``date_mentions``, ``timeline_rules``).
"""

from almanac.events.llm_tasks.argument_question import ARGUMENT_QUESTION
from almanac.events.llm_tasks.article_category import ARTICLE_CATEGORY
from almanac.events.llm_tasks.event_arguments import EVENT_ARGUMENTS
from almanac.events.llm_tasks.event_negatives import EVENT_NEGATIVES
from almanac.events.llm_tasks.occurrence_date import OCCURRENCE_DATE
from almanac.events.llm_tasks.timeline_complement import TIMELINE_COMPLEMENT
from almanac.events.llm_tasks.timeline_extract import TIMELINE_EXTRACT
from almanac.events.llm_tasks.timeline_reorder import TIMELINE_REORDER

__all__ = [
    "ARGUMENT_QUESTION",
    "ARTICLE_CATEGORY",
    "EVENT_ARGUMENTS",
    "EVENT_NEGATIVES",
    "OCCURRENCE_DATE",
    "TIMELINE_COMPLEMENT",
    "TIMELINE_EXTRACT",
    "TIMELINE_REORDER",
]
