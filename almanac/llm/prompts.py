"""Versioned prompt templates kept as files in ``prompts/``.

A template file has a front matter block (``version:`` and a one-line ``description:``) followed by
message sections introduced by ``@@ system`` / ``@@ user`` lines. Placeholders are ``{{name}}``;
rendering fails on a missing or unused variable so a renamed field cannot silently blank a prompt.
The file's version and a hash of its bytes travel with every request into the cache key and the
stage outputs, so editing a prompt invalidates exactly the answers it produced.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_FRONT = re.compile(r"\A---\n(?P<meta>.*?)\n---\n", re.DOTALL)
_SECTION = re.compile(r"^@@ (system|user)[ \t]*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

Message = tuple[str, str]  # (role, content)


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class PromptTemplate:
    task: str
    version: str
    content_hash: str  # sha256 of the file bytes, first 16 hex digits
    sections: tuple[Message, ...]  # (role, template text) in order

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(name for _, text in self.sections for name in _PLACEHOLDER.findall(text))

    def render(self, variables: Mapping[str, str]) -> tuple[Message, ...]:
        missing = self.variables - set(variables)
        unused = set(variables) - self.variables
        if missing or unused:
            raise PromptError(
                f"prompt {self.task!r}: missing variables {sorted(missing)}, unknown ones {sorted(unused)}"
            )

        def fill(match: re.Match[str]) -> str:
            return str(variables[match.group(1)])

        return tuple((role, _PLACEHOLDER.sub(fill, text).strip()) for role, text in self.sections)


def parse_template(task: str, text: str) -> PromptTemplate:
    front = _FRONT.match(text)
    if not front:
        raise PromptError(f"prompt {task!r}: missing '---' front matter with a version")
    meta = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition(":") for line in front.group("meta").splitlines())
        if key.strip()
    )
    version = meta.get("version", "")
    if not version:
        raise PromptError(f"prompt {task!r}: front matter has no 'version:'")
    body = text[front.end() :]
    pieces = _SECTION.split(body)
    if pieces[0].strip():
        raise PromptError(f"prompt {task!r}: text before the first '@@ system' or '@@ user' line")
    sections = tuple((pieces[i], pieces[i + 1]) for i in range(1, len(pieces), 2))
    if not sections or sections[-1][0] != "user":
        raise PromptError(f"prompt {task!r}: needs at least one '@@ user' section, last")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return PromptTemplate(task=task, version=version, content_hash=digest, sections=sections)


def load_prompt(task: str, prompts_dir: str | Path = "prompts") -> PromptTemplate:
    """Load ``prompts_dir/<task>.md`` (or ``.txt``)."""
    for suffix in (".md", ".txt"):
        path = Path(prompts_dir) / f"{task}{suffix}"
        if path.is_file():
            return parse_template(task, path.read_text(encoding="utf-8"))  # re-read: edits count at once
    raise PromptError(f"no prompt template for task {task!r} in {prompts_dir}/ (expected {task}.md)")
