"""The FutureX branch's LLM tasks, one module each: item builder, reply parser, offline answer.

Importing this package registers the harmful and subjective judges and the Level-3 answer judge with
:mod:`almanac.llm.registry`.
"""

from almanac.futurex.llm_tasks.answer_judge import ANSWER_JUDGE
from almanac.futurex.llm_tasks.harmful import HARMFUL
from almanac.futurex.llm_tasks.subjective import SUBJECTIVE

__all__ = ["ANSWER_JUDGE", "HARMFUL", "SUBJECTIVE"]
