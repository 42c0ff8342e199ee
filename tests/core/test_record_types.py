"""The memory and the audit event have one typed definition (``memhub.engine.payload``):
everything the engine stores is a key of it, and a key it does not know is refused."""

from __future__ import annotations

import pytest

from memhub.engine.payload import Event, Memory
from memhub.engine.records import new_payload
from memhub.scope import Scope
from memhub.store.base import every


def test_a_new_memory_with_a_key_a_memory_does_not_have_is_refused():
    scope = Scope(tenant="local", user_id="alice")
    assert new_payload("01A", "I live in Lyon", layer="fact", scope=scope, evidence=["01B"])
    with pytest.raises(TypeError, match="evidnce"):
        new_payload("01A", "I live in Lyon", layer="fact", scope=scope, evidnce=["01B"])


async def test_every_key_the_engine_stores_is_declared(client):
    first = await client.add(
        messages=[
            {"role": "user", "content": "I live in Lyon and I work at Airbus."},
            {"role": "assistant", "content": "Noted."},
        ],
        user_id="alice",
        session_id="s1",
        metadata={"topic": "home"},
    )
    await client.add("I moved to Berlin, I live in Berlin now.", user_id="alice")
    atom = await client.memorize("Deploys must go through the release branch.")
    await client.correct(
        atom.atom_id, "replace", "typo", new_content="Deploys use the release branch."
    )
    await client.govern(first.raw_ids[0], "seal", "private", lesson_content=None)
    await client.handoff("Next: finish the migration.")

    engine = client.engine
    memories = [p.payload for p in await every(engine.store, "memories")]
    events = [p.payload for p in await every(engine.store, "events")]
    assert len(memories) >= 6 and events
    stored_keys = {k for p in memories for k in p}
    assert stored_keys <= Memory.__optional_keys__, stored_keys - Memory.__optional_keys__
    event_keys = {k for e in events for k in e}
    assert event_keys <= Event.__optional_keys__, event_keys - Event.__optional_keys__


def test_memhub_ships_its_type_information():
    from importlib.resources import files

    assert files("memhub").joinpath("py.typed").is_file()  # PEP 561: users' checkers read it
