"""One tenant cannot starve another on a shared embedder: texts are cut to e5's window,
callers take turns, and every operation queues under its client's tenant."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from memhub import MemoryClient
from memhub.embed._fair import FairExecutor, caller
from memhub.engine.core import Engine
from memhub.store.edge import EdgeStore
from memhub.testing import HashEmbedder


def test_a_flooding_caller_delays_another_by_one_job():
    pool = FairExecutor("test-fair")
    gate, order = threading.Event(), []

    def job(name: str, wait: bool = False) -> str:
        if wait:
            gate.wait(10)
        order.append(name)
        return name

    token = caller.set("flooder")
    first = pool.submit(job, "a0", True)  # running, holds the worker
    flood = [pool.submit(job, f"a{i}") for i in range(1, 20)]
    caller.reset(token)
    token = caller.set("quiet")
    quiet = pool.submit(job, "b")
    caller.reset(token)
    gate.set()
    assert quiet.result(10) == "b" and first.result(10) == "a0"
    for f in flood:
        f.result(10)
    assert order.index("b") <= 2, order  # behind the running job and at most one more
    assert pool.pending() == {}


def test_an_error_reaches_its_caller_and_the_worker_goes_on():
    pool = FairExecutor("test-fair-errors")

    def boom() -> None:
        raise ValueError("bad input")

    failed = pool.submit(boom)
    assert isinstance(failed.exception(10), ValueError)
    assert pool.submit(lambda: 7).result(10) == 7


async def test_combining_marks_are_cut_to_e5s_window(e5):
    from memhub.embed.e5 import _model

    flood = "a" + "\u0301" * 7999
    model = _model(e5.num_threads)
    assert model.token_count(flood[: e5.max_chars], False) > 4 * e5.max_tokens  # four windows uncut
    cut = e5._cut(model, flood, False)
    assert 0 < model.token_count(cut, False) <= e5.max_tokens
    # the vector is the one of the text that fits, not of several windows averaged
    assert np.allclose(
        await e5.embed_query(flood), await e5.embed_query(e5._cut(model, flood, True)), atol=1e-6
    )
    short = "数据库选型"
    assert e5._cut(model, short, True) == short


class _Recording(HashEmbedder):
    """Records which caller each embedding was made for."""

    def __init__(self) -> None:
        super().__init__()
        self.callers: list[str] = []

    async def embed_query(self, text: str) -> list[float]:
        self.callers.append(caller.get())
        return await super().embed_query(text)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.callers.append(caller.get())
        return await super().embed_passages(texts)


async def test_each_operation_queues_under_its_clients_tenant(storage_dir, tmp_path):
    from memhub.scope import Scope

    embed = _Recording()
    engine = Engine(EdgeStore(storage_dir), embed)
    await engine.open()
    try:
        for tenant in ("acme", "globex"):
            client = MemoryClient(
                storage_dir=storage_dir, engine=engine, scope=Scope(tenant=tenant, app_id="default")
            )
            embed.callers.clear()
            await client.add("I live in Lyon", user_id="u1")
            await client.search("where do I live", user_id="u1")
            await client.memorize("the build uses uv")
            assert embed.callers and set(embed.callers) == {tenant}
    finally:
        await engine.close()
    assert caller.get() == ""
