"""API keys: each maps to one tenant; only the key's SHA-256 is ever written down.

``<storage_dir>/api_keys.json`` (mode 0600)::

    {"keys": [{"id": "k_3f9a…", "tenant": "acme", "sha256": "…", "created_at": "…"}]}

A key is shown once, by ``memhub keys create --tenant acme``. An operator's key,
``memhub keys create --tenant ops --admin``, may also run store-wide maintenance
(``POST /v1/hmg/purge``), which no tenant's key can. The file is re-read
when it changes, so keys created or revoked while the server runs apply at once.
A file that cannot be read, an entry without a valid ``sha256`` or a tenant name
outside ``TENANT_PATTERN`` is a ``KeyFileError``: the server refuses to start, and a
running server answers 503 to every request until the file is fixed (it never
falls back to older keys: a revoked key must not come back).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from memhub.errors import InvalidInputError, NotFoundError, UsageError
from memhub_server.limits import Limit, parse_rate

KEYS_FILE = "api_keys.json"
KEY_PREFIX = "mh_"
TENANT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class KeyFileError(UsageError):
    """The API key file cannot be used; the message names the file (for the operator only)."""

    code = "key_file_invalid"


class Authenticator(Protocol):
    """What the service asks of its key store: the tenant of a bearer token, or ``None``."""

    def tenant_for(self, token: str) -> str | None: ...

    def is_admin(self, token: str) -> bool:
        """Whether ``token`` may run store-wide maintenance (purge) for every tenant."""
        ...


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by the owner only (0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _problem(entry: object) -> str | None:
    """What is wrong with one entry of the key file, or ``None``."""
    if not isinstance(entry, dict):
        return "is not an object"
    if not isinstance(entry.get("id"), str) or not entry["id"]:
        return "has no id"
    if not isinstance(entry.get("tenant"), str) or not TENANT_PATTERN.match(entry["tenant"]):
        return (
            f"has an invalid tenant {entry.get('tenant')!r} (1-64 letters, digits, '.', '_', '-')"
        )
    if not isinstance(entry.get("sha256"), str) or not _SHA256.match(entry["sha256"]):
        return "has no sha256 (64 hex digits of the key's SHA-256)"
    return _limits_problem(entry.get("limits"))


def _limits_problem(limits: object) -> str | None:
    if limits is None:
        return None
    if not isinstance(limits, dict) or set(limits) - {"rate", "writes", "quota"}:
        return 'has limits that are not {"rate": "20/second", "writes": 4, "quota": 100000}'
    for name in ("writes", "quota"):
        value = limits.get(name)
        if value is not None and (type(value) is not int or value < 1):
            return f"has limits.{name} {value!r}, not a positive whole number"
    rate = limits.get("rate")
    if rate is not None:
        try:
            parse_rate(rate if isinstance(rate, str) else "")
        except InvalidInputError as err:
            return f"has {err}"
    return None


class SingleToken:
    """One bearer token for one tenant: the local hub's."""

    def __init__(self, token: str, tenant: str) -> None:
        self._digest = _digest(token)
        self.tenant = tenant

    def tenant_for(self, token: str) -> str | None:
        return self.tenant if hmac.compare_digest(_digest(token), self._digest) else None

    def is_admin(self, token: str) -> bool:
        return self.tenant_for(token) is not None  # the hub's one user owns the whole store


@dataclass(frozen=True)
class KeyInfo:
    id: str
    tenant: str
    created_at: str
    admin: bool = False
    limits: Limit | None = None
    """The key's own limits (``memhub_server.limits``), over the server's defaults."""


class KeyStore:
    """The API keys of a multi-tenant server (see the module docstring).

    Example:
        >>> keys = KeyStore(Path(".memhub_data") / KEYS_FILE)
        >>> key, info = keys.create("acme")      # show the key to the user once
        >>> keys.tenant_for(key)
        'acme'
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._by_digest: dict[str, KeyInfo] = {}
        self._seen: tuple[int, int] | None = None

    def _entries(self) -> list[dict]:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as err:
            raise KeyFileError(f"{self.path} is not a valid API key file: {err}") from err
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, list):
            raise KeyFileError(f'{self.path} must hold {{"keys": [...]}}')
        for i, entry in enumerate(keys):
            problem = _problem(entry)
            if problem:
                raise KeyFileError(f"{self.path}: key {i + 1} {problem}; fix or remove it")
        return keys

    def check(self) -> None:
        """Read the file now: ``KeyFileError`` if it cannot be used (done at server start)."""
        self._seen = None
        self._reload()

    def _reload(self) -> None:
        try:
            st = self.path.stat()
            seen = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            seen = (0, 0)
        if seen == self._seen:
            return
        self._by_digest = {
            e["sha256"]: KeyInfo(
                id=e["id"],
                tenant=e["tenant"],
                created_at=e.get("created_at", ""),
                admin=e.get("admin") is True,
                limits=Limit(**e["limits"]) if e.get("limits") else None,
            )
            for e in self._entries()
        }
        self._seen = seen

    def tenant_for(self, token: str) -> str | None:
        self._reload()
        info = self._by_digest.get(
            _digest(token)
        )  # a lookup by hash leaks nothing about other keys
        return info.tenant if info else None

    def is_admin(self, token: str) -> bool:
        self._reload()
        info = self._by_digest.get(_digest(token))
        return bool(info and info.admin)

    def limits_for(self, token: str) -> Limit | None:
        """The limits set on ``token``'s key, or ``None`` (the server's defaults apply)."""
        self._reload()
        info = self._by_digest.get(_digest(token))
        return info.limits if info else None

    def list_keys(self) -> list[KeyInfo]:
        self._reload()
        return sorted(self._by_digest.values(), key=lambda k: k.created_at)

    def create(
        self, tenant: str, *, admin: bool = False, limits: Limit | None = None
    ) -> tuple[str, KeyInfo]:
        """A new random key for ``tenant``; only its hash is stored. Returns the key (shown once).

        ``admin`` keys may also purge the whole store (see the module docstring);
        ``limits`` apply to this key's requests instead of the server's defaults.
        """
        if not TENANT_PATTERN.match(tenant):
            raise InvalidInputError(
                "tenant must be 1-64 letters, digits, '.', "
                "'_' or '-', starting with a letter or digit"
            )
        shown = {k: v for k, v in vars(limits).items() if v is not None} if limits else {}
        if problem := _limits_problem(shown):
            raise InvalidInputError(f"the key {problem.removeprefix('has ')}")
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        info = KeyInfo(
            id="k_" + secrets.token_hex(6),
            tenant=tenant,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            admin=admin,
            limits=limits if shown else None,
        )
        entry = {**vars(info), "limits": shown or None, "sha256": _digest(key)}
        if not shown:
            del entry["limits"]
        self._save([*self._entries(), entry])
        return key, info

    def revoke(self, key_id: str) -> KeyInfo:
        entries = self._entries()
        kept = [e for e in entries if e.get("id") != key_id]
        if len(kept) == len(entries):
            raise NotFoundError(f"no API key with id {key_id}")
        gone = next(e for e in entries if e.get("id") == key_id)
        self._save(kept)
        return KeyInfo(id=gone["id"], tenant=gone["tenant"], created_at=gone.get("created_at", ""))

    def _save(self, entries: list[dict]) -> None:
        write_private(self.path, json.dumps({"keys": entries}, indent=2) + "\n")
        self._seen = None
