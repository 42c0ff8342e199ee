"""``MemHubCheckpointer`` against ``langgraph-checkpoint-conformance`` (FULL level),
and a reopen.
"""

from __future__ import annotations

import contextlib
import io
import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import ProgressCallbacks
from langgraph.graph import END, START, StateGraph
from lg_fakes import BACKENDS

from memhub_langgraph import MemHubCheckpointer


@pytest.mark.parametrize("backend", BACKENDS)
async def test_conformance_full(make_client, conformance_reports, backend):
    clients = []

    async def one_store_per_run():
        # Like a database created for one validation run; each capability suite
        # still gets a fresh saver (threads are random uuids, so suites never collide).
        clients.append(make_client(f"conformance-{backend}", backend))
        yield
        await clients[0].aclose()

    @checkpointer_test(name=f"MemHubCheckpointer ({backend})", lifespan=one_store_per_run)
    async def memhub_checkpointer():
        saver = MemHubCheckpointer(clients[0])
        yield saver
        saver.close()

    report = await validate(memhub_checkpointer, progress=ProgressCallbacks.verbose())
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        report.print_report()
    conformance_reports.append(text.getvalue())
    print(text.getvalue())
    failures = [f for r in report.results.values() for f in r.failures]
    assert report.conformance_level() == "FULL", text.getvalue() + "\n".join(failures)
    assert all(r.detected and r.passed for r in report.results.values()), text.getvalue()


class _State(TypedDict):
    turns: Annotated[list[str], operator.add]


def _graph(checkpointer: MemHubCheckpointer):
    def respond(state: _State) -> dict:
        return {"turns": [f"reply {len(state['turns'])}"]}

    builder = StateGraph(_State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(checkpointer=checkpointer)


def test_graph_resumes_thread_after_reopen(tmp_path):
    from memhub.testing import HashEmbedder

    config = {"configurable": {"thread_id": "t-1"}}
    first = MemHubCheckpointer(storage_dir=tmp_path / "store", embed=HashEmbedder())
    assert _graph(first).invoke({"turns": ["hello"]}, config)["turns"] == ["hello", "reply 1"]
    history = len(list(first.list(config)))
    first.close()

    second = MemHubCheckpointer(storage_dir=tmp_path / "store", embed=HashEmbedder())
    graph = _graph(second)
    assert graph.get_state(config).values["turns"] == ["hello", "reply 1"]
    out = graph.invoke({"turns": ["again"]}, config)
    assert out["turns"] == ["hello", "reply 1", "again", "reply 3"]
    assert len(list(second.list(config))) > history
    assert graph.get_state({"configurable": {"thread_id": "other"}}).values == {}
    second.close()


async def test_graph_resumes_thread_after_reopen_async(tmp_path):
    from memhub.testing import HashEmbedder

    config = {"configurable": {"thread_id": "t-async"}}
    async with MemHubCheckpointer(storage_dir=tmp_path / "store", embed=HashEmbedder()) as first:
        await _graph(first).ainvoke({"turns": ["hi"]}, config)
    async with MemHubCheckpointer(storage_dir=tmp_path / "store", embed=HashEmbedder()) as second:
        state = await _graph(second).aget_state(config)
        assert state.values["turns"] == ["hi", "reply 1"]


def test_sync_call_from_its_own_loop_is_a_clear_error(make_client):
    import asyncio

    from memhub import UsageError

    saver = MemHubCheckpointer(make_client())

    async def inside() -> None:
        saver.get_tuple({"configurable": {"thread_id": "x"}})

    with pytest.raises(UsageError, match="aget_tuple"):
        asyncio.run_coroutine_threadsafe(inside(), saver._runner.loop).result()
    saver.close()
