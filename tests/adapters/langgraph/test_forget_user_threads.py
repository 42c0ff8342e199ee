"""forget_user reaches LangGraph threads: a compiled graph with ``MemHubCheckpointer`` keeps the
conversation and the recalled memory block in its checkpoints, and erasure takes them too."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from lg_fakes import BACKENDS, RecordingChatModel, scripted
from test_memory_graph_e2e import build_graph

from memhub import ConflictError, MemoryClient
from memhub.engine.lifecycle import erase
from memhub.store.base import Match, Where
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubCheckpointer, MemHubStore

# Words that appear in one user's conversation only.
ALICE, BOB = "Zorblaxia", "Quimbleton"
ALICE_TOLD = f"I'm allergic to peanuts and my cat is called {ALICE}."
BOB_TOLD = f"I love steak and my dog is called {BOB}."


def _files() -> ModuleType:
    """``tests/core/store_files.py``: what is on disk, holes skipped."""
    path = Path(__file__).parents[2] / "core" / "store_files.py"
    spec = importlib.util.spec_from_file_location("store_files", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def forms(word: str) -> list[bytes]:
    """``word`` as stored: as is, and base64-encoded at each of the three byte alignments
    (checkpoints hold their values as base64 of the serialised bytes)."""
    raw = word.encode()
    out = [raw]
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)
        start, stop = -(-8 * shift // 6), 8 * (shift + len(raw)) // 6
        out.append(encoded[start:stop])
    return out


def cfg(user: str, thread: str) -> dict:
    return {"configurable": {"user_id": user, "thread_id": thread}}


async def two_sessions(graph, user: str, told: str) -> None:
    """Session 1 tells a fact; session 2, a new thread, recalls it into the state."""
    await graph.ainvoke({"messages": [("user", told)]}, cfg(user, f"{user}-1"))
    await graph.ainvoke(
        {"messages": [("user", "What should I cook for my pet and me tonight?")]},
        cfg(user, f"{user}-2"),
    )


def text_of(tuples) -> str:
    """Everything ``list`` or ``get_state`` returns, as one string."""
    return "\n".join(repr(t) for t in tuples)


async def listed(checkpointer: MemHubCheckpointer, config: dict | None) -> list:
    return [t async for t in checkpointer.alist(config)]


async def writes_of(client: MemoryClient, thread: str) -> list:
    found, _ = await client.records.scroll(
        "checkpoint_writes", Where(must=(Match("thread_id", thread),)), limit=1000
    )
    return found


def model() -> RecordingChatModel:
    return scripted("Noted.", "A chickpea curry.", "Noted.", "A ribeye.", "Grill it medium rare.")


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


async def test_forget_user_deletes_the_users_threads_and_no_one_elses(make_client, backend):
    client = make_client(backend=backend)
    checkpointer, store = MemHubCheckpointer(client), MemHubStore(client)
    llm = model()
    graph = build_graph(client, llm, checkpointer, store)
    await two_sessions(graph, "alice", ALICE_TOLD)
    await two_sessions(graph, "bob", BOB_TOLD)
    recalled = (await graph.aget_state(cfg("alice", "alice-2"))).values["memories"]
    assert ALICE in recalled  # the state holds the memory block the search node put there
    assert ALICE in text_of(await listed(checkpointer, cfg("alice", "alice-1")))
    assert await writes_of(client, "alice-1")
    bob_before = (await graph.aget_state(cfg("bob", "bob-2"))).values

    result = await client.forget_user("alice")

    for thread in ("alice-1", "alice-2"):
        state = await graph.aget_state(cfg("alice", thread))
        assert state.values == {} and ALICE not in repr(state)
        assert await listed(checkpointer, cfg("alice", thread)) == []
        assert await writes_of(client, thread) == []
    everything = text_of(await listed(checkpointer, None))
    assert ALICE not in everything and "peanuts" not in everything
    assert BOB in everything

    # bob's threads are as they were, and his second session resumes
    assert (await graph.aget_state(cfg("bob", "bob-2"))).values == bob_before
    assert BOB in bob_before["memories"]
    out = await graph.ainvoke({"messages": [("user", "How do I cook it?")]}, cfg("bob", "bob-2"))
    assert out["messages"][-1].text == "Grill it medium rare."
    prompt = llm.prompt_text()
    assert "What should I cook for my pet and me tonight?" in prompt and "A ribeye." in prompt
    assert ALICE not in prompt

    assert (result.user_id, result.threads) == ("alice", 2) and result.tombstoned > 0
    assert (await client.forget_user("alice")).threads == 0
    store.close()
    checkpointer.close()


async def test_app_id_narrows_to_the_threads_of_that_app(make_client, backend):
    client = make_client(backend=backend)
    checkpointer = MemHubCheckpointer(client)
    graph = build_graph(client, model(), checkpointer)
    travel = {"configurable": {"user_id": "alice", "thread_id": "t-1", "app_id": "travel"}}
    cooking = {"configurable": {"user_id": "alice", "thread_id": "c-1", "app_id": "cooking"}}
    await graph.ainvoke({"messages": [("user", "I fly to Lima in May.")]}, travel)
    await graph.ainvoke({"messages": [("user", ALICE_TOLD)]}, cooking)

    travel_only = await client.forget_user("alice", app_id="travel")

    assert await listed(checkpointer, travel) == []
    assert ALICE in text_of(await listed(checkpointer, cooking))
    rest = await client.forget_user("alice")
    assert await listed(checkpointer, None) == []
    assert (travel_only.threads, rest.threads) == (1, 1)
    checkpointer.close()


async def test_the_user_is_read_from_the_runs_context(make_client):
    """LangGraph 1.x passes per-run ids through ``context=``: the thread is tied to that user."""
    from dataclasses import dataclass

    from langgraph.graph import END, START, MessagesState, StateGraph

    @dataclass
    class Ctx:
        user_id: str

    client = make_client()
    checkpointer = MemHubCheckpointer(client)
    builder = StateGraph(MessagesState, context_schema=Ctx)
    builder.add_node("echo", lambda state: {"messages": [("ai", "Noted.")]})
    builder.add_edge(START, "echo")
    builder.add_edge("echo", END)
    graph = builder.compile(checkpointer=checkpointer)
    thread = {"configurable": {"thread_id": "t-1"}}
    await graph.ainvoke({"messages": [("user", ALICE_TOLD)]}, thread, context=Ctx("alice"))

    result = await client.forget_user("alice")

    assert await listed(checkpointer, thread) == []
    assert result.threads == 1
    checkpointer.close()


@pytest.mark.slow
async def test_after_purge_no_file_holds_the_users_words(make_client, tmp_path):
    files = _files()
    client = make_client("store")
    checkpointer, store = MemHubCheckpointer(client), MemHubStore(client)
    graph = build_graph(client, model(), checkpointer, store)
    await two_sessions(graph, "alice", ALICE_TOLD)
    await two_sessions(graph, "bob", BOB_TOLD)
    root = tmp_path / "store"
    assert files.files_containing_any(root, forms(ALICE)), "alice's words should be on disk before"

    await client.forget_user("alice")
    await client.purge()

    assert files.files_containing_any(root, forms(ALICE)) == {}
    assert files.files_containing_any(root, forms(BOB))
    assert BOB in text_of(await listed(checkpointer, cfg("bob", "bob-1")))
    store.close()
    checkpointer.close()


@pytest.mark.slow
async def test_a_forget_cut_short_deletes_the_rest_of_the_threads_on_the_next_open(
    make_client, tmp_path, monkeypatch
):
    path = tmp_path / "store"
    client = make_client("store")
    checkpointer = MemHubCheckpointer(client)
    graph = build_graph(client, model(), checkpointer)
    await two_sessions(graph, "alice", ALICE_TOLD)
    checkpointer.close()

    real, calls = erase._delete_unit, 0

    async def cut_short(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 2:
            raise ConflictError("changed by another writer")
        await real(*args, **kwargs)

    monkeypatch.setattr(erase, "_delete_unit", cut_short)
    with pytest.raises(ConflictError):
        await client.forget_user("alice")
    monkeypatch.undo()
    await client.aclose()

    async with MemoryClient(storage_dir=path, embed=HashEmbedder(), cwd=tmp_path) as reopened:
        with MemHubCheckpointer(reopened) as again:
            assert await listed(again, None) == []
            assert await writes_of(reopened, "alice-1") == []
            assert await writes_of(reopened, "alice-2") == []
        assert (await reopened.forget_user("alice")).threads == 0
