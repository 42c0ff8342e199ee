"""A checkpoint holds its scalar channel values itself (``_codec.inline_values``): a step
of a graph writes fewer points, and checkpoints stored before read back the same."""

from __future__ import annotations

import asyncio
import operator
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from memhub.store.base import Match, Where
from memhub_langgraph import MemHubCheckpointer
from memhub_langgraph import _codec as codec


class _State(TypedDict):
    count: int
    mood: str
    turns: Annotated[list[str], operator.add]


def _graph(saver: MemHubCheckpointer):
    builder = StateGraph(_State)
    builder.add_node(
        "respond",
        lambda s: {"count": s["count"] + 1, "mood": "calm", "turns": [f"reply {s['count']}"]},
    )
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(checkpointer=saver)


def _blob_channels(client) -> list[str]:
    async def scan():
        found, _ = await client.records.scroll(
            "checkpoints", Where(must=(Match("kind", "blob"),)), limit=1000
        )
        return [p.payload["channel"] for p in found]

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, scan()).result()


@pytest.mark.parametrize("backend", ["edge", "qdrant-local"])
def test_scalar_channels_live_in_their_checkpoint_and_lists_in_shared_blobs(make_client, backend):
    client = make_client("s", backend)
    saver = MemHubCheckpointer(client)
    graph, config = _graph(saver), {"configurable": {"thread_id": "t1"}}
    for turn in range(6):
        graph.invoke({"count": turn * 10, "mood": "ok", "turns": [f"turn {turn}"]}, config)

    blobs = _blob_channels(client)
    # scalars and a small input ({"count": 0, ...}) are held by each checkpoint
    assert not {"count", "mood", "__start__"} & set(blobs)
    assert "turns" in blobs  # a list grown past a few items: a blob per version, shared
    state = graph.get_state(config).values
    assert state["count"] == 51 and state["mood"] == "calm"
    assert state["turns"][-2:] == ["turn 5", "reply 50"]
    history = [s.values.get("count") for s in graph.get_state_history(config)]
    assert history[:4] == [51, 50, 41, 41]  # the step, its input, the previous run's end
    if backend == "edge":  # nothing kept in memory: the store gives the same
        fresh = MemHubCheckpointer(make_client("s"))
        assert fresh.get_tuple(config).checkpoint == saver.get_tuple(config).checkpoint


def test_checkpoints_stored_with_every_value_a_blob_read_back_and_prune(make_client, monkeypatch):
    """As memhub stored checkpoints before: every channel value a blob of its own."""
    monkeypatch.setattr(codec, "inline_values", lambda serde, values, versions: {})
    client = make_client("s")
    old = MemHubCheckpointer(client)
    config = {"configurable": {"thread_id": "t1"}}
    _graph(old).invoke({"count": 1, "mood": "ok", "turns": ["hi"]}, config)
    assert "count" in _blob_channels(client)
    monkeypatch.undo()

    saver = MemHubCheckpointer(make_client("s"))
    graph = _graph(saver)
    assert graph.get_state(config).values == {
        "count": 2,
        "mood": "calm",
        "turns": ["hi", "reply 1"],
    }
    graph.invoke({"count": 5, "mood": "ok", "turns": ["again"]}, config)
    saver.prune(["t1"])
    assert graph.get_state(config).values == {
        "count": 6,
        "mood": "calm",
        "turns": ["hi", "reply 1", "again", "reply 5"],
    }
    assert len(list(graph.get_state_history(config))) == 1
