"""Secret redaction, applied to everything a caller sends before it is stored or embedded.

`redact` replaces credentials with ``[REDACTED:<kind>]`` markers. The formats are the
named rules of ``memhub._secret_rules`` (private keys, connection strings, webhook URLs,
60-odd vendor tokens, auth headers, JWTs, ``key=value`` assignments and credential
prose in English and Chinese), taken from the public rule sets of gitleaks
(``config/gitleaks.toml``) and detect-secrets (its plugins); that module names the
rule each one follows. Full-width forms (``ｐａｓｓｗｏｒｄ＝…``) are read as their
ASCII twins. Every pattern is linear on hostile input, and text that is already
redacted passes through unchanged.

`redact_value` does the same inside JSON-like values (``metadata``, tool-call
arguments): strings are redacted, and the whole value of a credential-named key
(``{"db_password": "…"}``) is replaced.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memhub._secret_rules import RULES, Rule

__all__ = ["Redaction", "redact", "redact_many", "redact_value"]


@dataclass(frozen=True)
class Redaction:
    """The result of redacting one text.

    Attributes:
        text: The text with every secret replaced by ``[REDACTED:<kind>]``.
        kinds: The kinds found, unique, in order of first appearance in the input.
    """

    text: str
    kinds: tuple[str, ...]


_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "「": "」"}
# Full-width ASCII (U+FF01-FF5E) and the ideographic space, one character for one, so
# the spans found in the folded text are the spans of the original.
_FOLD = {0xFF01 + i: 0x21 + i for i in range(94)} | {0x3000: 0x20}
_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")
# Mapping keys that name a credential, compared lower-cased without separators by their
# ending: "db_password", "apiKey", "X-Auth-Token", "PGPASSWORD" ("max_tokens" is not one).
_SECRET_NAMES = (
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "accountkey",
    "credential",
    "credentials",
    "authorization",
    "connectionstring",
    "dsn",
)


def _unquote(text: str, start: int, end: int) -> tuple[int, int]:
    # Keep the quotes so redacted JSON and YAML stay well-formed.
    if end - start > 2 and _QUOTE_PAIRS.get(text[start]) == text[end - 1]:
        return start + 1, end - 1
    return start, end


def _runs(rule: Rule, lowered: str) -> bool:
    return not rule.keywords or any(k in lowered for k in rule.keywords)


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with a ``[REDACTED:<kind>]`` marker.

    Args:
        text: Any string. Already-redacted text comes back unchanged with no kinds.

    Returns:
        The redacted text and the kinds of secret found.

    Example:
        >>> redact("my password is swordfish, 数据库密码是 Pg_2024").text
        'my password is [REDACTED:password], 数据库密码是 [REDACTED:password]'
    """
    return _redact(text, RULES)


def redact_many(texts: Sequence[str]) -> list[Redaction]:
    """``[redact(t) for t in texts]``, faster on many texts (an import): a rule whose
    keywords none of the texts holds is left out for all of them at once."""
    folded = "\n".join(texts)
    if _FULL_WIDTH.search(folded):
        folded = folded.translate(_FOLD)
    lowered = folded.lower()
    rules = [rule for rule in RULES if _runs(rule, lowered)]
    return [_redact(text, rules) for text in texts]


def _redact(text: str, rules: Sequence[Rule]) -> Redaction:
    folded = text.translate(_FOLD) if _FULL_WIDTH.search(text) else text
    lowered = folded.lower()
    # Accepted spans, sorted and non-overlapping. Existing markers are reserved (kind
    # None) so nothing inside or around them is redacted twice.
    spans: list[tuple[int, int, str | None]] = [
        (m.start(), m.end(), None) for m in _MARKER.finditer(folded)
    ]
    starts = [start for start, _, _ in spans]
    for rule in rules:
        if not _runs(rule, lowered):
            continue
        for match in rule.pattern.finditer(folded):
            start, end = _unquote(folded, *match.span(rule.group))
            i = bisect.bisect_right(starts, start)
            if (i and spans[i - 1][1] > start) or (i < len(spans) and spans[i][0] < end):
                continue
            starts.insert(i, start)
            spans.insert(i, (start, end, rule.kind))

    parts: list[str] = []
    kinds: dict[str, None] = {}
    pos = 0
    for start, end, kind in spans:
        if kind is None:
            continue
        parts += (text[pos:start], f"[REDACTED:{kind}]")
        kinds[kind] = None
        pos = end
    parts.append(text[pos:])
    return Redaction("".join(parts), tuple(kinds))


def _is_secret_name(key: Any) -> bool:
    return isinstance(key, str) and re.sub(r"[^a-z0-9]", "", key.lower()).endswith(_SECRET_NAMES)


def redact_value(value: Any, *, _depth: int = 0) -> Any:
    """``value`` with every string redacted, at any depth of dicts and lists.

    Under a key that names a credential (``password``, ``db_password``, ``apiKey``,
    ``client_secret``, ``PGPASSWORD`` …) a string or number is replaced whole by
    ``[REDACTED:password]``, since nothing about it tells a redaction rule it is secret.
    Keys, numbers, booleans and ``None`` are kept; already-redacted values pass through.

    Example:
        >>> redact_value({"db_password": "hunter2", "note": "token=abc123"})
        {'db_password': '[REDACTED:password]', 'note': 'token=[REDACTED:password]'}
    """
    if _depth > 32:  # JSON from a request is shallow; a deeper value is not worth walking
        return value
    if isinstance(value, str):
        return redact(value).text
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            secret = isinstance(item, str | int | float) and not isinstance(item, bool)
            if secret and _is_secret_name(key) and item != "" and not _MARKER.fullmatch(str(item)):
                out[key] = "[REDACTED:password]"
            else:
                out[key] = redact_value(item, _depth=_depth + 1)
        return out
    if isinstance(value, list | tuple):
        return type(value)(redact_value(item, _depth=_depth + 1) for item in value)
    return value
