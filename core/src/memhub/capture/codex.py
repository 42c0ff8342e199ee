"""Codex sessions: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Each line is a ``RolloutLine`` ``{timestamp, type, payload}`` (``RolloutItem`` is
serde-tagged ``type``/``payload``, snake_case). The ones read here:

* ``session_meta``: ``payload`` = ``SessionMeta`` flattened (``id``, ``timestamp``,
  ``cwd``, ``originator``, ``cli_version``, ``source``, ``instructions`` …) plus
  ``git`` ``{commit_hash, branch, repository_url}``. A ``source`` of
  ``{"subagent": …}`` marks a session Codex spawned for itself: not captured.
* ``turn_context``: ``payload.cwd`` (used when ``session_meta`` had none).
* ``response_item``: ``payload`` = ``ResponseItem``, tagged ``type``:
  ``message {role, content: [input_text|output_text {text}]}``;
  ``function_call {name, arguments: JSON string, call_id}``;
  ``custom_tool_call {name, input, call_id}`` (``apply_patch``);
  ``local_shell_call {call_id, action: {type: exec, command, working_directory}}``;
  ``web_search_call {action}``; and the outputs ``function_call_output`` /
  ``custom_tool_call_output`` ``{call_id, output}``, which are never read.
* Noise: ``developer``/``system`` messages, user messages that are Codex's own
  context fragments (``<environment_context>``, ``# AGENTS.md instructions for``,
  ``<user_instructions>``, ``<turn_aborted>`` …), ``reasoning``, ``ghost_snapshot``,
  ``compaction``; ``compacted`` lines; ``event_msg`` lines (UI events that repeat the
  messages and carry command output).

Sources: openai/codex ``codex-rs/protocol/src/protocol.rs`` (``RolloutLine``,
``RolloutItem``, ``SessionMetaLine``), ``codex-rs/protocol/src/models.rs``
(``ResponseItem``, ``ContentItem``, ``LocalShellAction``),
``codex-rs/core/src/git_info.rs`` (``GitInfo``) and
``codex-rs/core/src/contextual_user_message.rs`` (the context-fragment markers).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from memhub.capture._common import (
    START,
    Cursor,
    MessageBuilder,
    SessionInfo,
    Transcript,
    finish,
    read_jsonl,
)

# the cursor checks of a parser (capture._common.Parser): one JSONL file per session
from memhub.capture._common import appended as appended
from memhub.capture._common import size as size

SOURCE = "codex"

# User-role messages Codex writes itself (compared case-insensitively, like Codex does).
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions for ",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<additional_context>",
)
_IDE_REQUEST = "## My request for Codex:"  # the IDE extension puts editor context before it
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "mcp_tool_call_output")
_PATCH_PATH = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.M)


def default_root() -> Path:
    """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "sessions"


def discover(root: Path) -> list[Path]:
    """Rollout files anywhere under ``root``, oldest first (their names start with the time)."""
    return sorted(p for p in root.rglob("rollout-*.jsonl") if p.is_file())


def parse(path: Path, start: Cursor = START, info: SessionInfo | None = None) -> Transcript:
    """The messages of ``path`` after ``start``; ``info`` is what earlier reads learned."""
    records, end, warnings = read_jsonl(path, start)
    info = info or SessionInfo()
    build = MessageBuilder()
    for record in records:
        kind, payload, at = (
            record.data.get("type"),
            record.data.get("payload"),
            record.data.get("timestamp"),
        )
        if not isinstance(payload, dict):
            continue
        info.seen(at)
        if kind == "session_meta":
            _meta(info, payload)
        elif kind == "turn_context":
            info.cwd = info.cwd or _str(payload.get("cwd"))
        elif kind == "compacted":
            build.close()
        elif kind == "response_item":
            _item(build, payload, at, record.line)
    return Transcript(SOURCE, path, finish(info, path), build.messages, end, warnings)


def _meta(info: SessionInfo, meta: dict[str, Any]) -> None:
    info.session_id = info.session_id or _str(meta.get("id"))
    info.cwd = info.cwd or _str(meta.get("cwd"))
    git = meta.get("git")
    if isinstance(git, dict):
        info.branch = _str(git.get("branch")) or info.branch
    source = meta.get("source")
    if isinstance(source, dict) and "subagent" in source:
        info.skip = "a sub-agent's session"


def _item(build: MessageBuilder, item: dict[str, Any], at: str | None, line: int) -> None:
    kind = item.get("type")
    if kind == "message":
        texts = [_str(c.get("text")) for c in item.get("content") or () if isinstance(c, dict)]
        if item.get("role") == "user":
            build.user("\n\n".join(t for t in map(_user_text, texts) if t), at)
        elif item.get("role") == "assistant":
            build.assistant("\n\n".join(t for t in texts if t), at)
    elif kind == "function_call" and item.get("name"):
        build.tool_call(_call_id(item, line), item["name"], _arguments(item.get("arguments")), at)
    elif kind == "custom_tool_call" and item.get("name"):
        text = _str(item.get("input")) or ""
        args: dict[str, Any] = {"input": text}
        if item["name"] == "apply_patch":  # the paths are inside the patch text
            args["paths"] = [a or b for a, b in _PATCH_PATH.findall(text)]
        build.tool_call(_call_id(item, line), item["name"], args, at)
    elif kind == "local_shell_call":
        build.tool_call(_call_id(item, line), "local_shell", item.get("action") or {}, at)
    elif kind == "web_search_call":
        build.tool_call(_call_id(item, line), "web_search", item.get("action") or {}, at)
    elif kind in _OUTPUTS:  # the output itself is never read
        build.close()


def _user_text(text: str | None) -> str:
    text = (text or "").strip()
    if text.lower().startswith(_CONTEXT_PREFIXES):
        return ""
    head, marker, request = text.partition(_IDE_REQUEST)
    return request.strip() if marker else head


def _arguments(raw: Any) -> Any:
    """``function_call.arguments`` is a JSON string; keep it parsed when it parses."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw if raw is not None else {}


def _call_id(item: dict[str, Any], line: int) -> str:
    return _str(item.get("call_id")) or _str(item.get("id")) or f"line{line}"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
