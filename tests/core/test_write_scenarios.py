"""The write-path stories of ``write_scenarios``, each in one session and in one session per step.

Offline, as a user without API keys runs memhub: the bundled e5 embedder and the heuristic
extractor and judge. What is asserted is what the model would be shown afterwards.
"""

from __future__ import annotations

import pytest
from write_scenarios import STORIES, Story

from memhub import MemoryClient


@pytest.fixture
async def e5_client(storage_dir, tmp_path, e5):
    async with MemoryClient(storage_dir=storage_dir, embed=e5, cwd=tmp_path) as c:
        yield c


async def _tell(client: MemoryClient, story: Story, per_step_sessions: bool) -> list[str]:
    for i, text in enumerate(story.steps):
        session = f"s{i}" if per_step_sessions else "s0"
        await client.add(
            messages=[{"role": "user", "content": text}], user_id="u", session_id=session
        )
    return [m.content for m in await client.list(user_id="u")]


async def _shown(client: MemoryClient, query: str) -> list[str]:
    groups = (await client.search(query, user_id="u", limit=3)).memories
    items = sorted(
        [*groups.profile, *groups.proactive, *groups.normal], key=lambda m: -(m.score or 0)
    )
    return [m.content for m in items[:3]]


# A one-step story is the same run in both modes: it runs once.
CASES = [
    pytest.param(
        story, per_step, id=f"{story.id}-{'session-per-step' if per_step else 'one-session'}"
    )
    for story in STORIES
    for per_step in ((False, True) if len(story.steps) > 1 else (True,))
]


@pytest.mark.parametrize(("story", "per_step_sessions"), CASES)
async def test_story(e5_client, story: Story, per_step_sessions: bool):
    current = await _tell(e5_client, story, per_step_sessions)
    if story.kind == "change":
        assert any(story.now in c for c in current), current
        assert not any(story.stale in c for c in current), current
        assert not any(story.stale in c for c in await _shown(e5_client, story.query))
    elif story.kind == "adds_up":
        for value in story.keep:
            assert any(value in c for c in current), (value, current)
    elif story.kind == "repeat":
        assert sum(story.now in c for c in current) == 1, current
    elif story.kind == "noise":
        assert current == []
    else:
        assert any(story.keep[0] in c for c in current), current
