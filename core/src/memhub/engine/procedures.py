"""Coding memory: reusable engineering experience from sessions with tool traces.

``add(messages=…)`` with tool calls asks one question first: is this an engineering
session? If so, besides the usual facts, the session becomes a ``procedure``: the
problem (``task``, phrased as it would be searched), the fix (``solution``), the
files and commands involved, and search keys (error strings, identifiers, file
names). Tool OUTPUTS are never read: only the calls' names and arguments.

Versions live inside a boundary (workspace, branch, boundary_scope; ``strict`` adds
the session): a new solution to the same problem there supersedes the old one
(OVERRIDE), a complement stays beside it (SUPPLEMENT). Across boundaries, no relation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memhub._cjk import HAN
from memhub.messages import Turn
from memhub.models import Procedure
from memhub.text import fit, overlap

_PATH_KEYS = (
    "path",
    "file_path",
    "filepath",
    "filename",
    "file",
    "target_file",
    "notebook_path",
    "paths",
    "files",
)
_COMMAND_KEYS = ("command", "cmd", "commands", "script")
_CODING_TOOLS = re.compile(
    r"read|write|edit|patch|file|bash|shell|exec|run|grep|glob|search_code|git|test|build|compile|terminal|apply",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"(?<![\w.])[A-Za-z_][\w.]*(?:Error|Exception)\b(?::[^\n。，,;；]{0,80})?|(?:fatal|error): "
    r"[^\n。，,;；]{1,80}|"
    r"(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b|\bE\d{4}\b|\b[A-Z]{5,}\b|\b[45]\d\d [A-Z][a-z]+(?: "
    r"[A-Z][a-z]+)*)|\b(?:database is locked|segmentation fault|permission denied|timed? ?out|not "
    r"found|deadlock|connection refused|out of memory|undefined reference|cannot import name "
    r"\w+)\b",
    re.IGNORECASE,
)
_IDENT = re.compile(
    r"\b(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*\b|\b[a-z]+_[a-z_]+\b"
    r"|\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b|(?<![A-Z])[A-Z]{2,}(?: [A-Z]{2,})+"
)
_TECH = (
    "python",
    "sqlite",
    "postgres",
    "postgresql",
    "mysql",
    "redis",
    "node",
    "npm",
    "docker",
    "kubernetes",
    "react",
    "django",
    "fastapi",
    "pytest",
    "rust",
    "go",
    "java",
    "linux",
    "macos",
    "windows",
)
_PROBLEM = re.compile(
    r"报错|错误|失败|异常|偶发|崩溃|不工作|怎么|如何|为什么|error|fail|broken|crash|bug|issue|why|how",
    re.I,
)


@dataclass
class Session:
    """A coding session as the procedure extractor sees it (no tool outputs)."""

    user: list[str]
    answers: list[str]
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_raw": raw}
    return {}


def tool_calls(turns: list[Turn]) -> list[tuple[str, dict[str, Any]]]:
    """``(name, arguments)`` of every call: nested ``function.{name,arguments}`` or flat
    ``name/arguments``.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for t in turns:
        for call in t.tool_calls:
            if not isinstance(call, dict):
                continue
            nested = call.get("function")
            fn = nested if isinstance(nested, dict) else call
            calls.append(
                (str(fn.get("name") or ""), _arguments(fn.get("arguments", fn.get("input"))))
            )
    return calls


def is_coding(turns: list[Turn], calls: list[tuple[str, dict[str, Any]]]) -> bool:
    """The scene decision, offline: engineering tools or file/command arguments were used."""
    for name, args in calls:
        if _CODING_TOOLS.search(name) or any(k in args for k in _PATH_KEYS + _COMMAND_KEYS):
            return True
    return False


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, str)]
    return []


def files_of(calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    seen: dict[str, None] = {}
    for _, args in calls:
        for key in _PATH_KEYS:
            for value in _strings(args.get(key)):
                if value.strip():
                    seen.setdefault(value.strip(), None)
    return list(seen)


def commands_of(calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    seen: dict[str, None] = {}
    for _, args in calls:
        for key in _COMMAND_KEYS:
            for value in _strings(args.get(key)):
                seen.setdefault(value.strip()[:200], None)
    return [c for c in seen if c]


_ENV_ASSIGNMENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*=")
_GENERIC_COMMANDS = {
    "ls",
    "cd",
    "cat",
    "grep",
    "rg",
    "tail",
    "head",
    "sudo",
    "echo",
    "df",
    "du",
    "find",
    "sed",
    "awk",
    "less",
    "pwd",
    "which",
    "env",
    "export",
    "sh",
    "bash",
}


def search_keys(
    problem: str, files: list[str], commands: list[str], solution: str = ""
) -> list[str]:
    """Error strings and codes from the problem, file names, the programs run (not generic
    shell commands), and identifiers from both sides (the fix often names the component)."""
    keys: dict[str, None] = {}
    for m in _ERROR.finditer(problem):
        keys.setdefault(m.group(0).strip(), None)
    for f in files:
        keys.setdefault(f.rstrip("/").rsplit("/", 1)[-1], None)
    for c in commands:
        words = c.split()
        while words and _ENV_ASSIGNMENT.match(words[0]):  # "PGPASSWORD=… psql": the program is psql
            words.pop(0)
        program = words[0].strip(";&|") if words else ""
        if program not in _GENERIC_COMMANDS:
            keys.setdefault(program, None)
    for m in _IDENT.finditer(problem + " " + solution):
        keys.setdefault(m.group(0), None)
    return [k for k in keys if re.search(f"[A-Za-z{HAN}]", k)][:20]


def heuristic_procedure(
    turns: list[Turn],
    calls: list[tuple[str, dict[str, Any]]],
    *,
    max_chars: int,
    workspace_id: str | None,
    branch: str | None,
) -> Procedure | None:
    """Task from the user's problem statement, solution from the final answer."""
    user = [t.content for t in turns if t.role == "user" and t.content]
    answers = [t.content for t in turns if t.role == "assistant" and t.content]
    if not user or not answers:
        return None
    user, answers = fit(user, answers, max_chars)
    first = next((u for u in user if _PROBLEM.search(u)), user[0])
    # later messages that carry the actual error text belong to the problem too
    task = " ".join([first, *(u for u in user if u is not first and _ERROR.search(u))])
    solution = answers[-1]
    files, commands = files_of(calls), commands_of(calls)
    everything = " ".join(user + answers)
    envs = [t for t in _TECH if re.search(rf"\b{t}\b", everything, re.IGNORECASE)]
    return Procedure(
        task=task,
        solution=solution,
        search_keys=search_keys(task, files, commands, solution),
        boundary_envs=envs,
        boundary_scope="project" if workspace_id else "user",
        files=files,
        workspace_id=workspace_id,
        branch=branch,
    )


def content_of(p: Procedure) -> str:
    return f"{p.task}\n→ {p.solution}"


def vector_text(p: Procedure) -> str:
    """What the procedure is found by: the problem side, not the fix."""
    return " ".join([p.task, *p.search_keys])


_COMPLEMENT = re.compile(
    r"另外|此外|补充|同时也|还可以|also|additionally|as well|in addition", re.IGNORECASE
)


# The procedure judge's thresholds: ``relation`` is the rescaled cosine of the two tasks
# (write.relation.relation_score), the overlaps are word-set overlaps (0..1).
SAME_TASK = 0.8
"""Relation at which two procedures solve the same problem."""
SAME_TASK_WORDS = 0.5
"""Overlap of the task words at which they do, whatever the vectors say."""
SAME_FILES_TASK = 0.6
"""Relation at which procedures touching a common file solve the same problem."""
SAME_SOLUTION = 0.8
"""Overlap of the solution words at which a new procedure restates the old one."""


def judge_procedure(new: Procedure, old: Procedure, relation: float) -> tuple[str, str | None]:
    """OVERRIDE / SUPPLEMENT / NOOP for a neighbour in the same boundary, or ADD."""
    same_problem = (
        relation >= SAME_TASK
        or overlap(new.task, old.task) >= SAME_TASK_WORDS
        or bool(set(new.files) & set(old.files) and relation >= SAME_FILES_TASK)
    )
    if not same_problem:
        return "ADD", None
    if overlap(new.solution, old.solution) >= SAME_SOLUTION:
        return "NOOP", "duplicate"
    if _COMPLEMENT.search(new.solution):
        return "SUPPLEMENT", "complement"
    return "OVERRIDE", "new_solution"
