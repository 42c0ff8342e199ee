"""One engine, many callers: async, sync, threads, the adapter bridge and LangGraph, at once.

Every call meets on the engine's owner loop (memhub.engine.owner), so nothing can
deadlock, no acknowledged write is lost, a chain keeps one current version, and a
slow model call holds up nobody else's writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import random
import sys
import threading
import time
from collections import Counter

import pytest

from memhub import ConflictError, InvalidTransitionError, MemoryClient, SyncMemoryClient
from memhub.bridge import MemHub
from memhub.providers.heuristic import HeuristicJudge
from memhub.store.base import pages
from memhub.testing import HashEmbedder

WATCHDOG = 60.0  # seconds; a hang fails the test with every thread's stack instead of blocking CI


async def watched(coro):
    """``coro`` under a watchdog: a hang dumps all stacks and fails."""
    try:
        return await asyncio.wait_for(coro, WATCHDOG)
    except TimeoutError:
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        pytest.fail(f"no progress for {WATCHDOG:.0f} s: a deadlock")


class GatedJudge(HeuristicJudge):
    """The heuristic judge, held at a gate for chosen users (a slow model, scripted)."""

    free = False

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.slow_users: set[str] = set()

    async def judge(self, items):
        if any(u in " ".join(i.candidate.text for i in items) for u in self.slow_users):
            self.waiting.set()
            await asyncio.to_thread(self.gate.wait, WATCHDOG)
        return await super().judge(items)


async def test_a_sync_bridge_call_in_a_thread_and_an_async_one_on_the_loop_both_finish(tmp_path):
    """The reported hang: ``add_sync`` in a thread while ``await hub.add`` runs on the main loop."""
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        hub = MemHub(client)
        msgs = [{"role": "user", "content": f"I live in city number {i}"} for i in range(6)]

        def in_thread() -> list:
            return [hub.add_sync([m], user_id="alice") for m in msgs[:3]]

        async def on_loop() -> list:
            return [await hub.add([m], user_id="bob") for m in msgs[3:]]

        threaded, awaited = await watched(asyncio.gather(asyncio.to_thread(in_thread), on_loop()))
        assert len(threaded) == len(awaited) == 3
        raw = [i for r in (*threaded, *awaited) for i in r.raw_ids]
        assert len({p["id"] for p in await client.engine.get_many(raw)}) == 6
        assert [m.content for m in await client.list(user_id="alice")] == [
            "I live in city number 2"
        ]


async def test_a_slow_judge_for_one_user_does_not_hold_up_another_users_writes(tmp_path):
    judge = GatedJudge()
    judge.slow_users = {"Carol"}
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), jev=judge, cwd=tmp_path
    ) as client:
        await client.add("Carol works at Acme as an engineer", user_id="carol")
        slow = asyncio.ensure_future(
            client.add("Carol works at Initech as an engineer", user_id="carol")
        )
        await asyncio.to_thread(judge.waiting.wait, WATCHDOG)
        started = time.monotonic()
        await watched(client.add("Dave works at Globex", user_id="dave"))
        await watched(client.add("Dave works at Globex as a designer", user_id="dave"))
        assert time.monotonic() - started < 10  # the write lock is not held across the judge
        assert not slow.done()
        judge.gate.set()
        await watched(slow)


async def test_a_write_judged_against_memories_that_changed_meanwhile_is_judged_again(tmp_path):
    judge = GatedJudge()
    judge.slow_users = {"Erin"}
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), jev=judge, cwd=tmp_path
    ) as client:
        await client.add("Erin lives in Paris", user_id="erin")
        first = asyncio.ensure_future(client.add("Erin lives in Lyon", user_id="erin"))
        await asyncio.to_thread(judge.waiting.wait, WATCHDOG)
        judge.slow_users = set()  # the second write is judged at once ...
        await client.add("Erin lives in Lyon", user_id="erin", session_id="other")
        judge.gate.set()  # ... and the first, judged before it, must see what it wrote
        await watched(first)
        current = [m.content for m in await client.list(user_id="erin")]
        assert sorted(current) == ["Erin lives in Lyon", "Erin lives in Paris"]  # not Lyon twice


def _active_per_chain(points) -> Counter:
    return Counter(
        p.payload["chain_root"]
        for p in points
        if p.payload.get("status") == "active"
        and p.payload.get("layer") not in ("raw", "item", "item_text")
    )


async def test_mixed_callers_on_one_store_for_a_few_seconds(tmp_path):
    """Async, sync-in-threads, the bridge both ways, a second (shared) client and a
    LangGraph store hammer one store for a fixed time; nothing hangs, every
    acknowledged write is there, and each chain has one current version."""
    from memhub_langgraph import MemHubStore

    storage = tmp_path / "s"
    seconds = 3.0
    acked_raw: list[str] = []
    acked_items: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    ops = Counter()
    async with MemoryClient(storage_dir=storage, embed=HashEmbedder(), cwd=tmp_path) as client:
        hub = MemHub(client)
        store = MemHubStore(client)
        sync = await asyncio.to_thread(
            SyncMemoryClient, storage_dir=storage, embed=HashEmbedder(), cwd=tmp_path
        )
        deadline = time.monotonic() + seconds

        def thread_worker(n: int) -> None:
            rnd = random.Random(n)
            try:
                while time.monotonic() < deadline:
                    user = f"u{rnd.randrange(3)}"
                    kind = rnd.randrange(4)
                    if kind == 0:
                        r = sync.add(f"{user} likes colour {rnd.randrange(5)}", user_id=user)
                        acked_raw.extend(r.raw_ids)
                    elif kind == 1:
                        turn = {
                            "role": "user",
                            "content": f"{user} lives in town {rnd.randrange(5)}",
                        }
                        r = hub.add_sync([turn], user_id=user)
                        acked_raw.extend(r.raw_ids)
                    elif kind == 2:
                        key = f"k{n}-{ops['item']}"
                        store.put(("notes", user), key, {"text": f"note {key}"})
                        acked_items.append((user, key))
                    else:
                        sync.search("colour", user_id=user)
                    ops[f"thread-{kind}"] += 1
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        async def loop_worker(n: int) -> None:
            rnd = random.Random(100 + n)
            while time.monotonic() < deadline:
                user = f"u{rnd.randrange(3)}"
                kind = rnd.randrange(4)
                if kind == 0:
                    r = await client.add(
                        f"{user} works at company {rnd.randrange(5)}", user_id=user
                    )
                    acked_raw.extend(r.raw_ids)
                elif kind == 1:
                    turn = {"role": "user", "content": f"{user} drives a car {rnd.randrange(5)}"}
                    r = await hub.add([turn], user_id=user)
                    acked_raw.extend(r.raw_ids)
                elif kind == 2:
                    mine = await client.list(user_id=user)
                    if mine:
                        target = rnd.choice(mine)
                        text = f"{user} now prefers tea {rnd.randrange(9)}"
                        # a concurrent change of the same memory is a clean refusal
                        with contextlib.suppress(ConflictError, InvalidTransitionError):
                            await client.update(target.id, text, user_id=user)
                else:
                    await store.asearch(("notes", user), query="note")
                ops[f"loop-{kind}"] += 1

        threads = [asyncio.to_thread(thread_worker, n) for n in range(3)]
        try:
            await watched(asyncio.gather(*threads, loop_worker(0), loop_worker(1)))
        finally:
            await asyncio.to_thread(sync.close)
            await asyncio.to_thread(store.close)
        assert not errors, errors
        assert sum(ops.values()) > 20, ops
        found = {p["id"] for p in await client.engine.get_many(acked_raw)}
        assert found == set(acked_raw)  # no acknowledged write is lost
        points = [p async for page in pages(client.engine.store, "memories") for p in page]
        assert max(_active_per_chain(points).values()) == 1
    with MemHubStore(storage_dir=storage, embed=HashEmbedder()) as reopened:
        for user, key in acked_items:
            assert reopened.get(("notes", user), key) is not None
