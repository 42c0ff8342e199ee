"""Test infrastructure, not a product feature: a Qdrant REST endpoint over qdrant-client's
local mode, so several memhub processes can share one store on a machine without a
Qdrant server.

    python -m memhub.testing.qdrant_rest [--port 0] [--path DIR]

prints ``PORT n`` once it listens on 127.0.0.1, then serves the subset of Qdrant's HTTP
API that ``QdrantServerStore`` uses: each body is parsed into the
``qdrant_client.http.models`` class the client sent, the same-named method of
``QdrantLocal`` answers it, and the answer is wrapped as the server wraps it
(``{"result": ..., "status": "ok", "time": 0}``; errors as ``{"status": {"error": ...}}``).

Local mode runs one call at a time (the app calls it on its event loop, without
awaiting), a weaker concurrency than a real server's: conditional writes (``update_filter``)
can only be tested for their result here, not for a server's parallel segments.
Anything else the shim does not serve answers 404.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import warnings
from collections.abc import Awaitable, Callable, Iterator
from importlib.metadata import version
from typing import Any, cast
from urllib.parse import parse_qs

from pydantic import BaseModel
from qdrant_client.http import models
from qdrant_client.local.qdrant_local import QdrantLocal

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Handler = Callable[[QdrantLocal, str, Any, dict[str, str]], Any]


class ShimError(Exception):
    """An answer other than 200, with the server's status code."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _selector(points: Any, flt: models.Filter | None) -> Any:
    return points if points is not None else flt


def _create(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> bool:
    if q.collection_exists(name):
        raise ShimError(409, f"Wrong input: Collection `{name}` already exists!")
    req = models.CreateCollection.model_validate(body or {})
    return q.create_collection(
        name, vectors_config=req.vectors, sparse_vectors_config=req.sparse_vectors
    )


def _upsert(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.PointsList.model_validate(body)
    return q.upsert(name, points=req.points, update_filter=req.update_filter)


def _overwrite_payload(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.SetPayload.model_validate(body)
    return q.overwrite_payload(name, req.payload, points=_selector(req.points, req.filter))


def _delete(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    selector: models.PointIdsList | models.FilterSelector
    if "points" in body:
        selector = models.PointIdsList.model_validate(body)
    else:
        selector = models.FilterSelector.model_validate(body)
    return q.delete(name, selector)


def _delete_vectors(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.DeleteVectors.model_validate(body)
    return q.delete_vectors(name, req.vector, points=_selector(req.points, req.filter))


def _retrieve(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.PointRequest.model_validate(body)
    with_payload = True if req.with_payload is None else req.with_payload
    return q.retrieve(name, req.ids, with_payload=with_payload, with_vectors=bool(req.with_vector))


def _scroll(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.ScrollRequest.model_validate(body)
    records, offset = q.scroll(
        name,
        req.filter,
        limit=req.limit or 10,
        order_by=req.order_by,
        offset=req.offset,
        with_payload=True if req.with_payload is None else req.with_payload,
        with_vectors=bool(req.with_vector),
    )
    return {"points": records, "next_page_offset": offset}


def _count(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.CountRequest.model_validate(body)
    return q.count(name, req.filter, exact=True if req.exact is None else req.exact)


def _facet(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.FacetRequest.model_validate(body)
    return q.facet(
        name, req.key, facet_filter=req.filter, limit=req.limit or 10, exact=bool(req.exact)
    )


def _query(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.QueryRequest.model_validate(body)
    return q.query_points(
        name,
        query=cast(Any, req.query),  # the client sends a Query, never a bare vector
        using=req.using,
        prefetch=req.prefetch,
        query_filter=req.filter,
        search_params=req.params,
        limit=req.limit or 10,
        offset=req.offset,
        with_payload=True if req.with_payload is None else req.with_payload,
        with_vectors=bool(req.with_vector),
        score_threshold=req.score_threshold,
    )


def _index(q: QdrantLocal, name: str, body: Any, _: dict[str, str]) -> Any:
    req = models.CreateFieldIndex.model_validate(body)
    return q.create_payload_index(name, req.field_name, field_schema=req.field_schema)


ROUTES: list[tuple[str, re.Pattern[str], Handler]] = [
    (method, re.compile(f"^/collections/(?P<name>[^/]+){tail}$"), handler)
    for method, tail, handler in (
        ("GET", "/exists", lambda q, n, b, _: {"exists": q.collection_exists(n)}),
        ("GET", "", lambda q, n, b, _: q.get_collection(n)),
        ("PUT", "", _create),
        ("PATCH", "", lambda q, n, b, _: q.update_collection(n)),
        ("DELETE", "", lambda q, n, b, _: q.delete_collection(n)),
        ("PUT", "/index", _index),
        ("PUT", "/points", _upsert),
        ("POST", "/points", _retrieve),
        ("PUT", "/points/payload", _overwrite_payload),
        ("POST", "/points/delete", _delete),
        ("POST", "/points/vectors/delete", _delete_vectors),
        ("POST", "/points/scroll", _scroll),
        ("POST", "/points/count", _count),
        ("POST", "/points/query", _query),
        ("POST", "/facet", _facet),
    )
]


def _status_of(err: Exception) -> int:
    text = str(err)
    if "not found" in text.lower():
        return 404
    return 400


class QdrantRestShim:
    """The ASGI app (see the module docstring) over one ``QdrantLocal``.

    Args:
        path: a folder for local mode's files; ``None``: in memory, gone with the process.
    """

    def __init__(self, path: str | None = None) -> None:
        self.local = QdrantLocal(location=path or ":memory:")
        # a server builds the payload indexes the client asks for; local mode only warns
        warnings.filterwarnings("ignore", message="Payload indexes have no effect")
        major, minor = version("qdrant-client").split(".")[:2]
        self._root = {"title": "qdrant - vector search engine", "version": f"{major}.{minor}.0"}

    def answer(self, method: str, path: str, body: Any, query: dict[str, str]) -> tuple[int, Any]:
        """``(status, JSON body)`` of one request."""
        if method == "GET" and path == "/":
            return 200, self._root
        for route_method, pattern, handler in ROUTES:
            found = pattern.match(path)
            if found and route_method == method:
                try:
                    result = handler(self.local, found["name"], body, query)
                except ShimError as err:
                    return err.status, {"status": {"error": str(err)}, "time": 0}
                except (ValueError, KeyError, TypeError, AssertionError) as err:
                    return _status_of(err), {"status": {"error": str(err)}, "time": 0}
                except Exception as err:  # a shim defect: say what it was, as a server would
                    return 500, {"status": {"error": f"{type(err).__name__}: {err}"}, "time": 0}
                return 200, {"result": _jsonable(result), "status": "ok", "time": 0}
        return 404, {"status": {"error": f"not served by the test shim: {method} {path}"}}

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        query = {k: v[-1] for k, v in parse_qs(scope["query_string"].decode()).items()}
        try:
            body = json.loads(raw) if raw else None
        except ValueError as err:
            status, answer = 400, {"status": {"error": f"not JSON: {err}"}}
        else:
            status, answer = self.answer(scope["method"], scope["path"], body, query)
        data = json.dumps(answer).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})


@contextlib.contextmanager
def running(path: str | None = None, timeout: float = 60.0) -> Iterator[str]:
    """Run the shim in a process of its own; yields its URL (``http://127.0.0.1:PORT``) and
    stops the process on exit, a failed test's too."""
    command = [sys.executable, "-m", "memhub.testing.qdrant_rest"]
    child = subprocess.Popen(
        [*command, *(["--path", path] if path else [])], stdout=subprocess.PIPE, text=True
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        if not line.startswith("PORT "):
            raise RuntimeError(f"the Qdrant test shim did not start (exit {child.poll()})")
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        child.terminate()
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if child.stdout:
            child.stdout.close()


def main() -> None:
    import socket

    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="on 127.0.0.1 (default: a free one)")
    parser.add_argument("--path", default=None, help="local mode's folder (default: in memory)")
    args = parser.parse_args()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)  # connections queue from now on: the printed port is ready
    config = uvicorn.Config(
        QdrantRestShim(args.path), log_level="warning", access_log=False, lifespan="on"
    )
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
