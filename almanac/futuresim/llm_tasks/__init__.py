"""The LLM tasks of the FutureSim filters and replay agent, one module each: item builder, reply parser,
offline answer.

Importing this package registers each with :mod:`almanac.llm.registry`.
"""

from almanac.futuresim.llm_tasks.answer_match import ANSWER_MATCH
from almanac.futuresim.llm_tasks.capped_answer import CAPPED_ANSWER
from almanac.futuresim.llm_tasks.forecast import FORECAST

__all__ = ["ANSWER_MATCH", "CAPPED_ANSWER", "FORECAST"]
