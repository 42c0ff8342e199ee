"""A user's memories written one ``add`` each, then short questions asked of them: which
questions do not find their memory near the top (the tests of ``known_tools`` and
``language_axis``)."""

from __future__ import annotations

from memhub import MemoryClient


async def missed(
    client: MemoryClient, memories: dict[str, str], asked: list[tuple[str, str, int]]
) -> list[tuple[str, str, list[str | None]]]:
    """``memories`` (key -> text) added as user ``u``, one session each, each kept as a
    memory; then each ``(question, key, within)``: the questions whose memory is not among
    the first ``within`` results of ``search``, with what came first instead."""
    ids: dict[str, str] = {}
    for key, text in memories.items():
        res = await client.add(
            messages=[{"role": "user", "content": text}], user_id="u", session_id=key
        )
        stored = [d.memory_id for d in res.decisions if d.memory_id]
        assert stored, f"{text!r} was not kept as a memory"
        ids.update(dict.fromkeys(stored, key))
    out = []
    for question, wanted, within in asked:
        res = await client.search(question, user_id="u", limit=10)
        found = sorted(res.memories.all(), key=lambda m: -(m.score or 0.0))
        ranked = [ids.get(m.id) for m in found]
        if wanted not in ranked[:within]:
            out.append((question, wanted, ranked[:4]))
    return out
