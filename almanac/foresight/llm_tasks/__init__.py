"""The question pipeline's LLM tasks, one module each: item builder, reply parser, offline answer.

Importing this package registers all five with :mod:`almanac.llm.registry`.
"""

from almanac.foresight.llm_tasks.date_repair import DATE_REPAIR
from almanac.foresight.llm_tasks.leakage import LEAKAGE
from almanac.foresight.llm_tasks.qgen import QGEN
from almanac.foresight.llm_tasks.select_best import SELECT_BEST
from almanac.foresight.llm_tasks.validate import VALIDATE

__all__ = ["DATE_REPAIR", "LEAKAGE", "QGEN", "SELECT_BEST", "VALIDATE"]
