"""The FutureSim filters' LLM tasks, one module each: item builder, reply parser, offline answer.

Importing this package registers both with :mod:`almanac.llm.registry`.
"""

from almanac.futuresim.llm_tasks.answer_match import ANSWER_MATCH
from almanac.futuresim.llm_tasks.capped_answer import CAPPED_ANSWER

__all__ = ["ANSWER_MATCH", "CAPPED_ANSWER"]
