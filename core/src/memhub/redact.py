"""Secret redaction, applied to text before it is stored or embedded.

`redact` replaces credentials (connection strings, password assignments, auth headers,
JWTs, private keys, vendor API keys) with ``[REDACTED:<kind>]`` markers. English and
Chinese phrasings are both recognised. Patterns are precompiled and written to stay
linear on hostile input, and text that is already redacted passes through unchanged.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["Redaction", "redact"]


@dataclass(frozen=True)
class Redaction:
    """The result of redacting one text.

    Attributes:
        text: The text with every secret replaced by ``[REDACTED:<kind>]``.
        kinds: The kinds found, unique, in order of first appearance in the input.
    """

    text: str
    kinds: tuple[str, ...]


# Which part of a match is replaced: the whole match, or only the value after a key
# (so "password=hunter2" becomes "password=[REDACTED:password]").
_WHOLE = 0
_VALUE = "v"

_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")

# Left edges. Only ASCII letters and digits block a match, so a secret written right
# after Chinese text ("密钥sk-...") is still found.
_WORD_EDGE = r"(?<![A-Za-z0-9])"
_TOKEN_EDGE = r"(?<![A-Za-z0-9_-])"

# A bare credential value: printable ASCII without spaces, quotes or list separators,
# not ending in sentence punctuation. ASCII-only so "密码=abc123，下次换" stops at "，".
_NOT_TOKEN = r"\x00-\x20\x7f-\U0010ffff\"'`,;&"
_TOKEN = rf"[^{_NOT_TOKEN}]*[^{_NOT_TOKEN}.:!?)\]}}>]"
# An opening quote also ends the scan, which keeps runs of unclosed quotes linear.
_QUOTED = r"\"[^\"\r\n]+\"|'[^'\r\n]+'|“[^“”\r\n]+”|「[^「」\r\n]+」"
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "「": "」"}
_VALUE_RE = rf"(?P<v>{_QUOTED}|{_TOKEN})"
# Digits or symbols: what tells "password: hunter2" apart from "password: click here".
_SECRETISH = r"(?=[A-Za-z]*[0-9_@#$%^&*+=/\\~-])"

_PASSWORD_KEYS = (
    r"(?:pg)?password|passwd|pwd|passphrase|secret|client[_-]?secret"
    r"|(?:api|secret|access|private)[_-]?key|(?:access|auth|refresh|api|session)[_-]?token|token"
    # Bare "pass" is too common in prose ("tests pass: 42"); accept it only with "=".
    r"|pass(?=[\"']?[ \t]*=)"
)
_PASSWORD_SEP = (
    r"[\"']?(?:"
    r"[ \t]*=[ \t]*(?!=)"  # password=x, PASSWORD = x; "==" is a comparison
    r"|[ \t]*:[ \t]*(?=[\"'“「])"  # "password": "x"
    r"|:(?![ \t])"  # password:x
    # "password: x" reads like prose unless x looks like a secret or ends the line (YAML).
    r"|[ \t]*:[ \t]+(?:" + _SECRETISH + r"|(?=[A-Za-z]+[ \t]*(?:\r?\n|\Z)))"
    r")"
)
_ZH_SEP = (
    r"[ \t\u3000]*(?:[=:：]|(?:就|也|都)?[是为為][:：]?)[ \t\u3000]*"
    r"|[ \t\u3000]+" + _SECRETISH  # "root 密码 Abc@123"
)
# Between a key-ish word and a generic key: "key: x", "key is x", "密钥是x", "token x".
_LOOSE_SEP = (
    r"[\"']?(?:[ \t]*[:=：][ \t]*|[ \t]+(?:is|was)[ \t]+|[ \t]*(?:就|也)?[是为為][ \t]*|[ \t]+)"
)
# Random-looking: 20+ key characters mixing letters and digits, so plain words never match.
# "=" only as trailing padding: inside the class it would let "key=key=..." rescan.
_HIGH_ENTROPY = r"(?=[A-Za-z_+/-]*[0-9])(?=[0-9_+/-]*[A-Za-z])[A-Za-z0-9_+/-]{20,}={0,2}"
_URL_CHAR = r"\x00-\x20\x7f-\U0010ffff\"'<>`"


def _rule(
    kind: str, pattern: str, group: str | int = _WHOLE, flags: int = 0
) -> tuple[str, re.Pattern[str], str | int]:
    return kind, re.compile(pattern, re.ASCII | flags), group


# Order is precedence: where two matches overlap, the earlier rule wins. Private key
# blocks and connection strings come first because they contain text other rules would
# split up; vendor formats come before the auth-header and key=value rules so that
# "api_key=sk-..." reports openai_key; the generic high-entropy rule comes last.
_RULES = (
    _rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
        flags=re.DOTALL,
    ),
    _rule(
        "connection_string",
        rf"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{{0,31}}://"
        rf"[^{_URL_CHAR}:/@]{{0,256}}:[^{_URL_CHAR}/@]{{1,512}}@"
        rf"(?:[^{_URL_CHAR}]*[^{_URL_CHAR}.,;:!?)\]}}])?",
    ),
    _rule("anthropic_key", rf"{_TOKEN_EDGE}sk-ant-[A-Za-z0-9_-]{{20,}}"),
    _rule("openai_key", rf"{_TOKEN_EDGE}sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{{20,}}"),
    _rule("stripe_key", rf"{_TOKEN_EDGE}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{{16,}}"),
    _rule(
        "github_token",
        rf"{_TOKEN_EDGE}(?:gh[pousr]_[A-Za-z0-9]{{20,}}|github_pat_[A-Za-z0-9_]{{20,}})",
    ),
    _rule("slack_token", rf"{_TOKEN_EDGE}xox[abeprs]-[A-Za-z0-9-]{{10,}}"),
    _rule("google_api_key", rf"{_TOKEN_EDGE}AIza[A-Za-z0-9_-]{{35}}(?![A-Za-z0-9_-])"),
    _rule("aws_access_key", rf"{_WORD_EDGE}(?:AKIA|ASIA)[A-Z0-9]{{16}}(?![A-Za-z0-9])"),
    _rule(
        "aws_secret_key",
        rf"{_WORD_EDGE}(?i:aws_?secret_?(?:access_?)?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        _VALUE,
    ),
    _rule("jwt", rf"{_TOKEN_EDGE}eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}"),
    _rule(
        "bearer_token",
        # The token must hold an uppercase letter, digit or symbol: "bearer" in prose is
        # followed by lowercase words.
        r"(?<![A-Za-z])(?i:bearer)[ \t]+"
        r"(?P<v>(?=[a-z._~-]*[A-Z0-9+/=])[A-Za-z0-9._~+/=-]{16,})",
        _VALUE,
    ),
    _rule(
        "basic_auth",
        rf"{_WORD_EDGE}(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:basic)[ \t]+"
        r"(?P<v>[A-Za-z0-9+/]{4,}={0,2})",
        _VALUE,
    ),
    _rule("password", rf"{_WORD_EDGE}(?i:{_PASSWORD_KEYS}){_PASSWORD_SEP}{_VALUE_RE}", _VALUE),
    # Chinese values must be ASCII tokens, so "密码要定期更换" and "密码是什么" stay as they are.
    _rule("password", rf"(?:密码|口令)(?:{_ZH_SEP}){_VALUE_RE}", _VALUE),
    _rule(
        "api_key",
        rf"(?:{_WORD_EDGE}(?i:key|token|secret)s?{_LOOSE_SEP}|(?:密钥|秘钥|令牌)(?:{_LOOSE_SEP})?)"
        rf"[\"']?(?P<v>{_HIGH_ENTROPY})",
        _VALUE,
    ),
)


def _unquote(text: str, start: int, end: int) -> tuple[int, int]:
    # Keep the quotes so redacted JSON and YAML stay well-formed.
    if end - start > 2 and _QUOTE_PAIRS.get(text[start]) == text[end - 1]:
        return start + 1, end - 1
    return start, end


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with a ``[REDACTED:<kind>]`` marker.

    Args:
        text: Any string. Already-redacted text comes back unchanged with no kinds.

    Returns:
        The redacted text and the kinds of secret found.
    """
    # Accepted spans, sorted and non-overlapping. Existing markers are reserved (kind
    # None) so nothing inside or around them is redacted twice.
    spans: list[tuple[int, int, str | None]] = [
        (m.start(), m.end(), None) for m in _MARKER.finditer(text)
    ]
    starts = [start for start, _, _ in spans]
    for kind, pattern, group in _RULES:
        for match in pattern.finditer(text):
            start, end = _unquote(text, *match.span(group))
            i = bisect.bisect_right(starts, start)
            if (i and spans[i - 1][1] > start) or (i < len(spans) and spans[i][0] < end):
                continue
            starts.insert(i, start)
            spans.insert(i, (start, end, kind))

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
