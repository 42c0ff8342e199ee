"""Where a memory belongs: tenant, user/app/agent/session, and the git checkout.

The HMG calls infer ``repository``, ``branch`` and ``workspace`` from the git
checkout of the working directory (read from ``.git`` directly: no subprocess).
Reads filter by the scope given; see :func:`memhub.engine.filters.visible`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from memhub.errors import InvalidInputError

ANY = "*"
"""Pass as ``repository``/``branch``/``workspace`` to widen a read across them."""

MAX_ID = 256
# Control characters separate the fields of the access key (memhub.engine.access).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NEVER_ANY = ("tenant", "user_id")  # a wildcard would be stored as "no user" (Scope.payload)


def check_id(value: Any, name: str) -> str:
    """``value`` without surrounding whitespace, if it is a usable id; else ``InvalidInputError``.

    The one rule for every id a caller names (user, app, agent, session, checkout keys),
    applied at every door: a string of 1 to ``MAX_ID`` characters once stripped, with no
    control characters; ``user_id`` and ``tenant`` cannot be the wildcard ``"*"``.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} must be a non-empty string")
    text = value.strip()
    if len(text) > MAX_ID:
        raise InvalidInputError(f"{name} is {len(text)} characters; the limit is {MAX_ID}")
    if _CONTROL.search(text):
        raise InvalidInputError(f"{name} must not contain control characters")
    if text == ANY and name in _NEVER_ANY:
        raise InvalidInputError(
            f"{name} cannot be {ANY!r}: it names one {name.removesuffix('_id')}"
        )
    return text


def checked(**scope: str | None) -> dict[str, str | None]:
    """A call's scope keys with every one given (not ``None``) passed through ``check_id``."""
    return {k: None if v is None else check_id(v, k) for k, v in scope.items()}


CHECKOUT_KEYS = ("workspace", "repository", "branch")


def call_scope(default: Scope, given: Mapping[str, str | None], *, user: bool = False) -> Scope:
    """The scope one call runs in: the client's ``default`` with the call's keys, each checked
    (``checked``), applied over it.

    ``user``: a MemHub call (add, search, list, ...) is user-centric: the default's checkout
    (``CHECKOUT_KEYS``) neither binds what it writes nor narrows what it reads, so those
    keys are ``ANY`` unless the call names them. The local and the remote client alike.
    """
    base = default.with_(**dict.fromkeys(CHECKOUT_KEYS, ANY)) if user else default
    return base.with_(**checked(**given))


def recall_overrides(checkout: Scope, **given: str | None) -> dict[str, str | None]:
    """A read's scope overrides, without the checkout's branch where it does not belong.

    The checkout's branch is a branch of the checkout's repository: a read of every
    repository (``repository="*"``) or of another one reads any branch of it, unless
    ``branch`` is given too. Applied by the local and the remote client alike.
    """
    repository = given.get("repository")
    if repository not in (None, checkout.repository) and given.get("branch") is None:
        return {**given, "branch": ANY}
    return given


@dataclass(frozen=True)
class Scope:
    tenant: str = "local"
    user_id: str | None = None
    app_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    workspace: str | None = None
    repository: str | None = None
    branch: str | None = None

    def with_(self, **overrides: str | None) -> Scope:
        """A copy with every override that is not ``None`` applied."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown scope keys: {sorted(unknown)}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def payload(self) -> dict[str, str]:
        """The scope as stored on a memory: concrete values only (``ANY`` is a
        read-only wildcard).
        """
        return {k: v for k in SCOPE_KEYS if (v := getattr(self, k)) is not None and v != ANY}


SCOPE_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Scope))
"""The scope keys, in the order a memory stores them: ``Scope``'s fields, listed only there.
The store's indexes (``memhub.store.schema``) and the inspector's filters
(``memhub.engine.read.browse``) are made from it."""


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():  # worktree or submodule: "gitdir: <path>"
            text = dot_git.read_text(errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text.split(":", 1)[1].strip())
                return folder, target if target.is_absolute() else (folder / target).resolve()
    return None


def repository_from_url(url: str) -> str:
    """``git@github.com:mem0ai/mem0.git`` or ``https://github.com/mem0ai/mem0`` ->
    ``mem0ai/mem0``.
    """
    path = re.sub(r"^[a-z+]+://[^/]+/", "", url.strip())
    path = re.sub(r"^[^@/]+@[^:/]+[:/]", "", path)
    path = path.removesuffix("/").removesuffix(".git")
    parts = [
        p for p in path.split("/") if p and p != "."
    ]  # a clone of "." has origin "/path/to/repo/."
    return "/".join(parts[-2:]) if parts else url


def _origin_url(git_dir: Path) -> str | None:
    config = git_dir / "config"
    common = git_dir / "commondir"
    if not config.exists() and common.exists():
        config = (git_dir / common.read_text().strip()).resolve() / "config"
    if not config.exists():
        return None
    section = None
    for line in config.read_text(errors="replace").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == '[remote "origin"]' and line.startswith("url"):
            return line.split("=", 1)[1].strip()
    return None


def git_scope(cwd: str | Path | None = None) -> dict[str, str]:
    """``workspace``, ``repository`` and ``branch`` of the checkout containing ``cwd`` (empty if
    none).
    """
    found = _git_dir(Path(cwd or Path.cwd()).resolve())
    if found is None:
        return {}
    top, git_dir = found
    url = _origin_url(git_dir)
    scope = {
        "workspace": str(top),
        "repository": repository_from_url(url) if url else f"local/{top.name}",
    }
    head = git_dir / "HEAD"
    if head.exists():
        ref = head.read_text(errors="replace").strip()
        scope["branch"] = (
            ref.removeprefix("ref: refs/heads/") if ref.startswith("ref:") else ref[:12]
        )
    return scope
