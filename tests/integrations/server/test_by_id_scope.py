"""Tenants, users (and apps) are kept apart on every by-id operation, checkouts are not,
and every door takes the same ids.

Every door (the async SDK, the sync SDK, ``RemoteClient``, the REST routes, the MCP
tools and a client reaching the local hub) × every operation on one memory by its id
(get, update, delete, history, correct, govern): a memory of another tenant, user or app
gets exactly the answer of an id that does not exist, also asked from another checkout,
and is left unchanged; its owner reaches it from any checkout (or from none: a home
directory), since a scope narrows what is recalled, not which ids exist. An id the SDK
refuses (blank, too long, control characters, a wildcard user) is refused by every door,
and surrounding spaces are dropped everywhere. Real stores
throughout; the doors run on their own event loops.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from memhub import MemHubError, MemoryClient, Settings, SyncMemoryClient
from memhub.engine import hmg
from memhub.engine.core import Engine
from memhub.remote import RemoteClient
from memhub.scope import Scope
from memhub.testing import HashEmbedder
from memhub_mcp.tools import MemoryTools
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore

pytestmark = [pytest.mark.enable_socket, pytest.mark.network]  # the hub listens on loopback

MISSING = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a valid id no memory has
MEMHUB_OPS = ("get", "update", "delete")  # the MemHub face: scoped by user_id only
HMG_OPS = ("history", "correct", "govern")  # the HMG face: user and app, any checkout
WEB = {"workspace": "/home/alice/web", "repository": "acme/web", "branch": "main"}
API = {"workspace": "/home/alice/api", "repository": "acme/api", "branch": "dev"}


@dataclass(frozen=True)
class Case:
    """A memory written with ``owner``'s scope, asked for with ``caller``'s."""

    name: str
    owner: dict[str, str]
    caller: dict[str, str]
    ops: tuple[str, ...]
    other_tenant: bool = False


CASES = (
    Case("other user", {"user_id": "alice"}, {"user_id": "mallory"}, MEMHUB_OPS + HMG_OPS),
    Case(
        "other user, other checkout",
        {"user_id": "alice", **WEB},
        {"user_id": "mallory", **API},
        MEMHUB_OPS + HMG_OPS,
    ),
    Case("other app", {"user_id": "alice", "app_id": "crm"}, {"user_id": "alice"}, HMG_OPS),
    Case("other tenant", {"user_id": "alice"}, {"user_id": "alice"}, MEMHUB_OPS + HMG_OPS, True),
    Case(
        "other tenant, other checkout",
        {"user_id": "alice", **WEB},
        {"user_id": "alice", **API},
        MEMHUB_OPS + HMG_OPS,
        True,
    ),
)
# The same user from elsewhere: another repository and branch, another branch of the same
# repository, no checkout at all (a home directory), and no user named (the tenant's own).
REACHED = {
    "other repository": ({"user_id": "alice", **WEB}, {"user_id": "alice", **API}),
    "other branch": ({"user_id": "alice", **WEB}, {"user_id": "alice", **WEB, "branch": "dev"}),
    "no checkout": ({"user_id": "alice", **WEB}, {"user_id": "alice"}),
    "the tenant": ({"user_id": "alice", **WEB}, API),
}


class Loop:
    """An event loop in a thread: the async doors run here, as an app's loop would."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine) -> Any:
        future: Future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout=120)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


def sdk_call(client: Any, op: str, atom_id: str, scope: dict[str, str]) -> Any:
    """The call ``op`` on a client with the SDK's API (async or sync: it returns
    what it returns).
    """
    user = scope.get("user_id")
    return {
        "get": lambda: client.get(atom_id, user_id=user),
        "update": lambda: client.update(atom_id, "a brand new version", user_id=user),
        "delete": lambda: client.delete(atom_id, user_id=user),
        "history": lambda: client.history(atom_id, **scope),
        "correct": lambda: client.correct(atom_id, "negate", "no longer true", **scope),
        "govern": lambda: client.govern(atom_id, "seal", "must not exist", **scope),
    }[op]()


def outcome_of_error(err: MemHubError, atom_id: str) -> tuple:
    return ("error", type(err).__name__, err.code, str(err).replace(atom_id, "<id>"))


def _on_owner(engine: Engine, work: Callable[[Engine], Coroutine]) -> Coroutine:
    """``work`` run on the engine's owner loop, awaitable from any loop."""
    return engine.owner.call(work(engine))


class Door:
    """One way in. ``engine`` runs a coroutine on the engine behind the door, on its loop."""

    tenant = "local"
    ops = MEMHUB_OPS + HMG_OPS

    def engine(self, work: Callable[[Engine], Coroutine]) -> Any:
        raise NotImplementedError

    def call(self, op: str, atom_id: str, scope: dict[str, str]) -> tuple:
        """``("ok",)`` or the error as a comparable tuple, with the id replaced by ``<id>``."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class AsyncSdk(Door):
    def __init__(self, store: Path, tmp: Path) -> None:
        self.loop = Loop()
        self.client = MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp)
        self.loop.run(self.client.open())

    def engine(self, work):
        return self.loop.run(_on_owner(self.client.engine, work))

    def call(self, op, atom_id, scope):
        try:
            self.loop.run(sdk_call(self.client, op, atom_id, scope))
        except MemHubError as err:
            return outcome_of_error(err, atom_id)
        return ("ok",)

    def close(self):
        self.loop.run(self.client.aclose())
        self.loop.close()


class SyncSdk(Door):
    def __init__(self, store: Path, tmp: Path) -> None:
        self.client = SyncMemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp)

    def engine(self, work):
        return self.client.submit(_on_owner(self.client.async_client.engine, work)).result(
            timeout=120
        )

    def call(self, op, atom_id, scope):
        try:
            sdk_call(self.client, op, atom_id, scope)
        except MemHubError as err:
            return outcome_of_error(err, atom_id)
        return ("ok",)

    def close(self):
        self.client.close()


class Mcp(AsyncSdk):
    """The MCP tools over the server's one client (there are no get/update/delete tools)."""

    ops = HMG_OPS

    def __init__(self, store: Path, tmp: Path) -> None:
        super().__init__(store, tmp)
        self.tools = MemoryTools(lambda: self.client)

    def call(self, op, atom_id, scope):
        args = {
            "history": {},
            "correct": {"action": "negate", "reason": "no longer true"},
            "govern": {"action": "seal", "reason": "must not exist"},
        }[op]
        key = "atom_id" if op == "history" else "target_atom"
        result = self.loop.run(getattr(self.tools, op)(**{key: atom_id}, **args, **scope))
        if not result.is_error:
            return ("ok",)
        return ("error", result.content[0].text.replace(atom_id, "<id>"))


class Rest(Door):
    """The REST routes, one request each, as any HTTP client sends them."""

    tenant = "tenant-a"

    def __init__(self, store: Path, tmp: Path) -> None:
        from memhub_server.service import MemoryService

        self.loop = Loop()
        keys = KeyStore(store / KEYS_FILE)
        self.key, _ = keys.create(self.tenant)
        self.service = MemoryService(Settings(storage_dir=str(store)), embed=HashEmbedder())
        self.loop.run(self.service.open())
        self.transport = httpx.ASGITransport(app=create_app(service=self.service, auth=keys))
        self.http = httpx.AsyncClient(
            transport=self.transport,
            base_url="http://memhub.test",
            headers={"Authorization": f"Bearer {self.key}"},
        )

    def engine(self, work):
        return self.loop.run(_on_owner(self.service.engine, work))

    def call(self, op, atom_id, scope):
        user = {"user_id": scope["user_id"]} if "user_id" in scope else {}
        request = {
            "get": ("GET", f"/v1/memories/{atom_id}", {"params": user}),
            "update": (
                "PUT",
                f"/v1/memories/{atom_id}",
                {"json": {"content": "a brand new version", **user}},
            ),
            "delete": ("DELETE", f"/v1/memories/{atom_id}", {"params": user}),
            "history": ("GET", f"/v1/hmg/history/{atom_id}", {"params": scope}),
            "correct": (
                "POST",
                "/v1/hmg/correct",
                {
                    "json": {
                        "target_atom": atom_id,
                        "action": "negate",
                        "reason": "no longer true",
                        **scope,
                    }
                },
            ),
            "govern": (
                "POST",
                "/v1/hmg/govern",
                {
                    "json": {
                        "target_atom": atom_id,
                        "action": "seal",
                        "reason": "must not exist",
                        **scope,
                    }
                },
            ),
        }[op]
        method, path, kwargs = request
        response = self.loop.run(self.http.request(method, path, **kwargs))
        if response.is_success:
            return ("ok",)
        return ("error", response.status_code, response.text.replace(atom_id, "<id>"))

    def close(self):
        self.loop.run(self.http.aclose())
        self.loop.run(self.service.close())
        self.loop.close()


class Remote(Rest):
    """``RemoteClient``: the SDK's API over the same routes."""

    def __init__(self, store: Path, tmp: Path) -> None:
        super().__init__(store, tmp)
        self.client = RemoteClient(
            "http://memhub.test", self.key, scope=Scope(), transport=self.transport
        )

    def call(self, op, atom_id, scope):
        try:
            self.loop.run(sdk_call(self.client, op, atom_id, scope))
        except MemHubError as err:
            return outcome_of_error(err, atom_id)
        return ("ok",)

    def close(self):
        self.loop.run(self.client.aclose())
        super().close()


class Hub(AsyncSdk):
    """A ``MemoryClient`` whose store is held by a running local hub: every call goes through it."""

    def __init__(self, store: Path, tmp: Path, hub_thread: Any) -> None:
        self.hub_thread = hub_thread(store)
        self.hub = self.hub_thread.__enter__()
        super().__init__(store, tmp)
        assert self.client.remote is not None, "the client should have reached the hub"

    def engine(self, work):
        return self.hub_thread._call(_on_owner(self.hub.service.engine, work))

    def close(self):
        try:
            super().close()
        finally:
            self.hub_thread.__exit__(None, None, None)


DOORS = {"sdk": AsyncSdk, "sync": SyncSdk, "remote": Remote, "rest": Rest, "mcp": Mcp, "hub": Hub}


@pytest.fixture(params=list(DOORS))
def door(request, fresh_store, tmp_path, hub_thread):
    kind = DOORS[request.param]
    made = kind(fresh_store, tmp_path, hub_thread) if kind is Hub else kind(fresh_store, tmp_path)
    try:
        yield made
    finally:
        made.close()
        # an opened store takes ~300 MB of tmpfs: dozens of doors must not pile up in memory
        shutil.rmtree(fresh_store.parent, ignore_errors=True)


async def _state(engine: Engine, atom_id: str) -> tuple:
    """Everything a by-id call could change: the stored record and its audit steps."""
    found = await engine.get_many([atom_id])
    return found[0] if found else None, await engine.events(atom_id)


@pytest.mark.parametrize("op", MEMHUB_OPS + HMG_OPS)
def test_a_memory_outside_the_callers_scope_answers_like_a_missing_id(door: Door, op: str):
    if op not in door.ops:
        pytest.skip(f"this door has no {op}")
    checked = 0
    for case in CASES:
        if op not in case.ops:
            continue
        tenant = "elsewhere" if case.other_tenant else door.tenant
        owner = Scope(tenant=tenant, app_id="default").with_(**case.owner)
        text = f"{case.name}: the vault code is 4711 ({op})"
        atom_id = door.engine(lambda e, s=owner, t=text: hmg.memorize(e, t, s)).atom_id
        before = door.engine(lambda e, i=atom_id: _state(e, i))

        foreign = door.call(op, atom_id, case.caller)
        missing = door.call(op, MISSING, case.caller)

        assert missing[0] == "error" and "not_found" in str(missing), (case.name, missing)
        assert foreign == missing, case.name
        assert door.engine(lambda e, i=atom_id: _state(e, i)) == before, case.name
        if not case.other_tenant:  # the owner, asking with the memory's own scope, reaches it
            assert door.call(op, atom_id, case.owner) == ("ok",), case.name
        checked += 1
    assert checked


@pytest.mark.parametrize("op", MEMHUB_OPS + HMG_OPS)
@pytest.mark.parametrize("where", list(REACHED))
def test_a_memory_is_reached_by_its_id_from_any_checkout(door: Door, op: str, where: str):
    if op not in door.ops:
        pytest.skip(f"this door has no {op}")
    owner_keys, caller = REACHED[where]
    owner = Scope(tenant=door.tenant, app_id="default").with_(**owner_keys)
    text = f"the release train leaves on Thursdays ({op}, {where})"
    atom_id = door.engine(lambda e: hmg.memorize(e, text, owner)).atom_id
    before = door.engine(lambda e: _state(e, atom_id))

    assert door.call(op, atom_id, caller) == ("ok",)
    after = door.engine(lambda e: _state(e, atom_id))
    if op in ("get", "history"):
        assert after == before
    else:  # the write happened: a new version, an archive, a negation or a seal
        assert after[0]["status"] != before[0]["status"] or after[0]["exposure"] == "sealed"
        assert len(after[1]) > len(before[1])


def test_a_wildcard_app_or_checkout_widens_but_never_crosses_users(door: Door):
    owner = Scope(tenant=door.tenant, app_id="crm", user_id="alice", repository="acme/web")
    atom_id = door.engine(
        lambda e: hmg.memorize(e, "alice's deploy key lives in the vault", owner)
    ).atom_id
    widened = {"app_id": "*", "repository": "*", "branch": "*"}

    assert door.call("history", atom_id, {"user_id": "alice", **widened}) == ("ok",)
    assert door.call("history", atom_id, {"user_id": "mallory", **widened}) == door.call(
        "history", MISSING, {"user_id": "mallory", **widened}
    )


BAD_USERS = ["   ", "al\x00ice", "a" * 257, "*"]


def sdk_outcome(run: Callable[[], Any]) -> tuple:
    try:
        return ("ok", run())
    except MemHubError as err:
        return ("error", err.code)


def id_calls(door: Door, user: str, *, forget: bool = True) -> dict[str, tuple]:
    """What each door answers to calls naming ``user``, one per kind of call."""
    if isinstance(door, Mcp):
        run = door.loop.run
        tools = door.tools
        results = {
            "add": run(tools.add(user_id=user, content="I drink green tea")),
            "search": run(tools.search(query="tea", user_id=user)),
            "history": run(tools.history(atom_id=MISSING, user_id=user)),
        }
        return {
            k: ("error", r.meta["memhub/error"]["code"]) if r.is_error else ("ok",)
            for k, r in results.items()
        }
    if isinstance(door, Rest) and not isinstance(door, Remote):
        run, http = door.loop.run, door.http
        responses = {
            "add": run(
                http.post("/v1/memories/", json={"content": "I drink green tea", "user_id": user})
            ),
            "search": run(http.post("/v1/memories/search", json={"query": "tea", "user_id": user})),
            "get": run(http.get(f"/v1/memories/{MISSING}", params={"user_id": user})),
            "history": run(http.get(f"/v1/hmg/history/{MISSING}", params={"user_id": user})),
        }
        if forget:
            responses["forget_user"] = run(http.delete(f"/v1/users/{quote(user, safe='')}"))
        return {
            k: ("error", r.json()["error"]["code"])
            if r.status_code in (400, 422)
            else ("ok", r.status_code)
            for k, r in responses.items()
        }
    client = door.client
    run = door.loop.run if hasattr(door, "loop") else lambda value: value
    answers = {
        "add": sdk_outcome(lambda: run(client.add(content="I drink green tea", user_id=user))),
        "search": sdk_outcome(lambda: run(client.search("tea", user_id=user))),
        "get": sdk_outcome(lambda: run(client.get(MISSING, user_id=user))),
        "history": sdk_outcome(lambda: run(client.history(MISSING, user_id=user))),
    }
    if forget:
        answers["forget_user"] = sdk_outcome(lambda: run(client.forget_user(user)))
    return answers


@pytest.mark.parametrize("user", BAD_USERS, ids=["blank", "control", "too-long", "wildcard"])
def test_every_door_refuses_the_same_ids(door: Door, user: str):
    answers = id_calls(door, user)
    assert answers and set(answers.values()) == {("error", "invalid_input")}, answers


def test_every_door_drops_the_spaces_around_an_id(door: Door):
    answers = id_calls(door, " alice ", forget=False)
    assert answers["add"][0] == "ok"
    found = door.engine(lambda e: e.store.scroll("memories", None, limit=100))[0]
    assert {p.payload.get("user_id") for p in found} == {"alice"}


def search_everywhere(door: Door, user: str) -> str:
    """What a search of ``user`` over every app (``app_ids=["*"]``) shows, as text."""
    query = "spare key blue pot"
    if isinstance(door, Mcp):
        result = door.loop.run(door.tools.search(query=query, user_id=user, app_ids=["*"]))
        return result.content[0].text
    if isinstance(door, Rest) and not isinstance(door, Remote):
        body = {"query": query, "user_id": user, "app_ids": ["*"]}
        return door.loop.run(door.http.post("/v1/memories/search", json=body)).text
    run = door.loop.run if hasattr(door, "loop") else lambda value: value
    return run(door.client.search(query, user_id=user, app_ids=["*"])).model_dump_json()


def test_a_wildcard_app_search_never_reads_another_user(door: Door):
    alice = Scope(tenant=door.tenant, app_id="crm", user_id="alice")
    door.engine(lambda e: hmg.memorize(e, "alice keeps the spare key under the blue pot", alice))

    assert "spare key" in search_everywhere(door, "alice")
    assert "spare key" not in search_everywhere(door, "mallory")


def probe_lines(atom_id: str) -> list[str]:
    """A one-memory import file naming ``atom_id``, as anyone holding an export can write."""
    memory = {
        "id": atom_id,
        "content": "probe",
        "layer": "fact",
        "user_id": "mallory",
        "created_at": "2024-01-01T00:00:00.000Z",
    }
    return [json.dumps({"id": atom_id, "memory": memory, "events": []})]


def import_call(door: Door, lines: list[str]) -> Any:
    """What ``door`` answers to an import of ``lines``."""
    if isinstance(door, Rest) and not isinstance(door, Remote):
        response = door.loop.run(
            door.http.post(
                "/v1/import",
                content="\n".join(lines),
                headers={"content-type": "application/x-ndjson"},
                params={"first_line": 1},
            )
        )
        return response.status_code, response.json()
    run = door.loop.run if hasattr(door, "loop") else lambda value: value
    return run(door.client.import_(lines)).model_dump()


def test_an_import_naming_another_tenants_memory_answers_like_a_missing_id(door: Door):
    """The import rows: a line naming a memory of another tenant is imported, as one naming
    no memory is, into the importer's tenant; the other tenant's memory is left as it was."""
    if isinstance(door, Mcp):
        pytest.skip("the MCP tools have no import")
    owner = Scope(tenant="elsewhere", app_id="default", user_id="alice")
    atom_id = door.engine(lambda e: hmg.memorize(e, "the vault code is 4711", owner)).atom_id
    before = door.engine(lambda e: _state(e, atom_id))

    foreign = import_call(door, probe_lines(atom_id))
    missing = import_call(door, probe_lines(MISSING))

    assert foreign == missing, (foreign, missing)
    result = foreign[1] if isinstance(foreign, tuple) else foreign
    assert (result["imported"], result["skipped"]) == (1, 0), foreign
    assert door.engine(lambda e: _state(e, atom_id)) == before
    assert import_call(door, probe_lines(atom_id)) == import_call(door, probe_lines(MISSING))
