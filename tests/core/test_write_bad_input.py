"""Contradictory, empty, very long and mixed-language writes: a clear result or a clear error,
and nothing stored is lost: an OVERRIDE keeps the old version in the chain and the history."""

from __future__ import annotations

import io
import json

import pytest

from memhub import InvalidInputError


def _say(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


async def _current(client) -> list[str]:
    return [m.content for m in await client.list(user_id="u")]


async def test_the_later_of_two_contradicting_statements_in_one_write_wins(client):
    result = await client.add(
        messages=_say("I live in Berlin. Actually, I live in Paris."), user_id="u"
    )
    berlin, paris = result.decisions
    assert (berlin.action, paris.action) == ("ADD", "OVERRIDE")
    assert paris.targets == [berlin.memory_id]
    assert await _current(client) == ["I live in Paris"]  # "Actually," is a lead-in
    found = (await client.search("where do I live", user_id="u")).memories.profile
    assert found[0].evolution_chain == [berlin.memory_id]


async def test_a_sentence_taken_back_keeps_only_the_correction(client):
    await client.add(messages=_say("我住在上海，不对，我住在北京"), user_id="u")
    assert await _current(client) == ["我住在北京"]


async def test_an_override_keeps_the_old_version_reachable(client):
    old = (
        await client.add(messages=_say("我用的手机是 iPhone 12"), user_id="u", session_id="a")
    ).decisions[0]
    new = (
        await client.add(messages=_say("我现在用华为 Mate 60"), user_id="u", session_id="b")
    ).decisions[0]
    assert new.action == "OVERRIDE" and new.targets == [old.memory_id]
    history = await client.history(new.memory_id, user_id="u")
    assert history.relations.supersedes == [old.memory_id]
    replaced = await client.get(old.memory_id, user_id="u")
    assert (replaced.content, replaced.status) == ("我用的手机是 iPhone 12", "superseded")
    assert (
        await client.get(new.memory_id, user_id="u")
    ).session_id == "b"  # provenance of the new version
    listed = await client.list(user_id="u", include_history=True)
    assert {m.content for m in listed} == {"我用的手机是 iPhone 12", "我现在用华为 Mate 60"}


@pytest.mark.parametrize(
    "messages", [[], [{"role": "user", "content": "   "}], [{"role": "system", "content": "x"}]]
)
async def test_empty_writes_are_refused_and_change_nothing(client, messages):
    await client.add(messages=_say("I own a red bike."), user_id="u")
    with pytest.raises(InvalidInputError):
        await client.add(messages=messages, user_id="u")
    assert await _current(client) == ["I own a red bike"]


async def test_a_very_long_message_stays_a_raw_turn(client):
    blob = "lorem ipsum " * 2500 + "I live in Rome."
    result = await client.add(messages=_say(blob), user_id="u")
    assert result.raw_ids and await _current(client) == []
    turns = (await client.search_conversation("lorem ipsum", user_id="u")).turns
    assert turns[0].content == blob


async def test_mixed_languages_in_one_message_keep_each_statement(client):
    await client.add(
        messages=_say("I live in Berlin, 我在字节跳动工作, and I love sushi."), user_id="u"
    )
    assert sorted(await _current(client)) == sorted(
        ["I live in Berlin", "我在字节跳动工作", "I love sushi"]
    )


NUL = "the vault code is 47\x0011"


NUL_LINE = json.dumps(
    {
        "id": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "memory": {
            "id": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "content": NUL,
            "layer": "fact",
            "user_id": "u",
            "created_at": "2024-01-01T00:00:00.000Z",
        },
    }
)


def _nul_writes(client, target: str) -> dict:
    """Every way text enters the store, each given a text holding NUL."""
    return {
        "add content": lambda: client.add(content=NUL, user_id="u"),
        "add messages": lambda: client.add(
            messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": NUL}],
            user_id="u",
        ),
        "memorize": lambda: client.memorize(NUL, user_id="u"),
        "correct": lambda: client.correct(target, "replace", "moved", NUL, user_id="u"),
        "update": lambda: client.update(target, NUL, user_id="u"),
        "derive_lesson": lambda: client.govern(target, "derive_lesson", "why", NUL, user_id="u"),
        "import": lambda: client.import_([NUL_LINE], strict=True),
    }


async def _everything(client) -> list[str]:
    out = io.StringIO()
    await client.export(out)
    return out.getvalue().splitlines()[1:]  # the header carries the time of the export


async def test_a_text_holding_nul_is_refused_by_every_write_and_changes_nothing(client):
    """NUL (U+0000) is refused in memory text as in ids and metadata keys: it means nothing
    in prose, tools reading C strings cut the text there, and dropping it would change the
    user's text without a word."""
    target = (await client.memorize("the vault code is 4711", user_id="u")).atom_id
    before = await _everything(client)
    for name, write in _nul_writes(client, target).items():
        with pytest.raises(InvalidInputError, match="NUL") as refused:
            await write()
        assert "u0000" in str(refused.value), name
        assert await _everything(client) == before, name
    # a plain import of the same line reports it and stores nothing either
    result = await client.import_([NUL_LINE])
    assert (result.imported, result.invalid) == (0, 1) and "NUL" in result.errors[0]
    assert await _everything(client) == before
