"""A self-introduction through the SDK with the bundled e5: the name and the role are
profile items of their own (zh and en), and what the user typed in lower case is stored as a
sentence, names spelt in lower case left as they are."""

from __future__ import annotations

import pytest

from memhub import MemoryClient


async def _stored(e5, tmp_path, said: str, store: str = "s") -> list[tuple[str, str]]:
    async with MemoryClient(storage_dir=tmp_path / store, embed=e5, cwd=tmp_path) as client:
        await client.add(messages=[{"role": "user", "content": said}], user_id="u")
        return sorted((m.layer, m.content) for m in await client.list(user_id="u"))


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        (
            "Hi, I'm Dana, a frontend developer",
            [("profile", "I'm Dana"), ("profile", "I'm a frontend developer")],
        ),
        (
            "Hi there, I'm Dana Smith, senior frontend developer at Stripe.",
            [
                ("profile", "I'm Dana Smith"),
                ("profile", "I'm a senior frontend developer at Stripe"),
            ],
        ),
        (
            "我叫王芳，在字节做产品经理",
            [("profile", "我叫王芳"), ("profile", "我在字节做产品经理")],
        ),
    ],
)
async def test_a_self_introduction_is_a_name_and_a_role_in_the_profile(e5, tmp_path, said, stored):
    assert await _stored(e5, tmp_path, said) == sorted(stored)


async def test_a_statement_typed_in_lower_case_starts_with_a_capital(e5, tmp_path):
    stored = await _stored(e5, tmp_path, "we switched the frontend to React")
    assert stored == [("fact", "We switched the frontend to React")]
    # a name spelt in lower case is the user's spelling, not a sentence's first letter
    assert await _stored(e5, tmp_path, "npm is our package manager at work", "npm") == [
        ("fact", "npm is our package manager at work")
    ]
