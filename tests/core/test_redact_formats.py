"""Every secret format memhub redacts: one example and one near miss each (``secret_formats``)."""

from __future__ import annotations

import pytest
from secret_formats import rows

from memhub.redact import redact, redact_value

ROWS = rows()


def test_fifty_formats_or_more():
    assert len(ROWS) >= 50
    assert len({kind for _, kind, *_ in ROWS}) >= 40


@pytest.mark.parametrize(("name", "kind", "text", "secret", "near"), ROWS, ids=[r[0] for r in ROWS])
def test_the_format_is_redacted(name, kind, text, secret, near):
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert kind in result.kinds


@pytest.mark.parametrize(("name", "kind", "text", "secret", "near"), ROWS, ids=[r[0] for r in ROWS])
def test_the_near_miss_is_kept(name, kind, text, secret, near):
    assert redact(near).text == near


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"db_password": "hunter2"}, {"db_password": "[REDACTED:password]"}),
        ({"PGPASSWORD": 1234}, {"PGPASSWORD": "[REDACTED:password]"}),
        (
            {"apiKey": "x", "max_tokens": 5, "is_secret": True},
            {"apiKey": "[REDACTED:password]", "max_tokens": 5, "is_secret": True},
        ),
        ({"env": {"X-Auth-Token": "abc"}}, {"env": {"X-Auth-Token": "[REDACTED:password]"}}),
        ({"note": "password=hunter2"}, {"note": "password=[REDACTED:password]"}),
        (["ok", {"secret": ""}], ["ok", {"secret": ""}]),
    ],
)
def test_redact_value(value, expected):
    assert redact_value(value) == expected
    assert redact_value(expected) == expected
