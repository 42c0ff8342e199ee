"""One write stores its extracted memories in one upsert and their audit steps in another."""

from __future__ import annotations


async def test_a_write_stores_its_memories_and_their_steps_in_one_upsert_each(client):
    store = client.engine.store
    upserts: list[tuple[str, int]] = []
    original = store.upsert

    async def counted(collection, points, **kw):
        upserts.append((collection, len(points)))
        return await original(collection, points, **kw)

    store.upsert = counted
    said = "I live in Lyon. My dog is called Rex. I work as a nurse. I play the cello."
    result = await client.add(messages=[{"role": "user", "content": said}], user_id="u")
    added = [d.memory_id for d in result.decisions if d.action == "ADD"]
    assert len(added) == 4
    # the raw turn, then the four memories together; their four steps together
    assert [u for u in upserts if u[0] == "memories"] == [("memories", 1), ("memories", 4)]
    assert [u for u in upserts if u[0] == "events"] == [("events", 4)]
    history = await client.history(added[-1], user_id="u")
    assert [s.action for s in history.status_history] == ["add"]
