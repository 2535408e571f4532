"""The LLM layer: one cached, concurrent, fault-tolerant client for every LLM stage, plus an offline baseline.

Tasks (prompt, item builder, reply parser, offline answer) live with their domain and register here.

Stages use :func:`run_task` (prompt + parse + repair) or, for custom prompts, :func:`run_requests`.
"""

from almanac.llm.cache import LLMCache
from almanac.llm.client import arun_requests, run_requests
from almanac.llm.config import LLMConfig, LLMConfigError, RoleConfig, parse_llm_config
from almanac.llm.embeddings import run_embeddings
from almanac.llm.parsing import ParseError
from almanac.llm.prompts import PromptTemplate, load_prompt
from almanac.llm.registry import Task, TaskItem, lookup, register
from almanac.llm.request import LLMRequest, LLMResult
from almanac.llm.tasks import TaskResult, arun_task, build_requests, run_task
from almanac.llm.transport import LLMFatalError

__all__ = [
    "LLMCache",
    "LLMConfig",
    "LLMConfigError",
    "LLMFatalError",
    "LLMRequest",
    "LLMResult",
    "ParseError",
    "PromptTemplate",
    "RoleConfig",
    "Task",
    "TaskItem",
    "TaskResult",
    "arun_requests",
    "arun_task",
    "build_requests",
    "load_prompt",
    "lookup",
    "parse_llm_config",
    "register",
    "run_embeddings",
    "run_requests",
    "run_task",
]
