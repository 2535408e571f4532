"""The LLM layer: one cached, concurrent, fault-tolerant client for every LLM stage, plus an offline baseline.

Stages use :func:`run_task` (prompt + parse + repair) or, for custom prompts, :func:`run_requests`.
"""

from almanac.llm.cache import LLMCache
from almanac.llm.client import LLMRequest, LLMResult, arun_requests, run_requests
from almanac.llm.config import LLMConfig, LLMConfigError, RoleConfig, parse_llm_config
from almanac.llm.outputs import BestChoice, DateRepair, GeneratedQuestion, LeakageEdit, ValidationVerdict
from almanac.llm.parsing import ParseError
from almanac.llm.prompts import PromptTemplate, load_prompt
from almanac.llm.tasks import TaskItem, TaskResult, arun_task, build_requests, run_task
from almanac.llm.transport import LLMFatalError

__all__ = [
    "BestChoice",
    "DateRepair",
    "GeneratedQuestion",
    "LLMCache",
    "LLMConfig",
    "LLMConfigError",
    "LLMFatalError",
    "LLMRequest",
    "LLMResult",
    "LeakageEdit",
    "ParseError",
    "PromptTemplate",
    "RoleConfig",
    "TaskItem",
    "TaskResult",
    "ValidationVerdict",
    "arun_requests",
    "arun_task",
    "build_requests",
    "load_prompt",
    "parse_llm_config",
    "run_requests",
    "run_task",
]
