"""What the service counts, for Prometheus (``GET /metrics``) and the inspector's overview.

One ``Metrics`` per app, on its own ``prometheus_client`` registry (two apps in one
process, as in the tests, never mix their counts). The series:

==============================================  =====================================
``memhub_requests_total``                       requests by ``route``, ``method``,
                                                ``status``, ``tenant``
``memhub_request_duration_seconds``             latency histogram by ``route``, ``method``
                                                (search, add, recall, ... each its own)
``memhub_embed_duration_seconds``               the embedder's latency, by ``kind``
                                                (``query``, ``passages``)
``memhub_write_decisions_total``                the write judge's decisions by ``tenant``,
                                                ``action`` (ADD, NOOP, OVERRIDE, SUPPLEMENT,
                                                INVALID, NEED_CONTEXT, RAW_ONLY), every one,
                                                stored or not
``memhub_owner_loop_tasks``                     operations in flight on the engine's loop
``memhub_embed_queue_depth``                    texts waiting for the shared embedder
``memhub_memories``                             stored memories per ``tenant`` (every
                                                layer and status), counted at scrape time
==============================================  =====================================

``route`` is the route's template (``/v1/memories/{memory_id}``), so ids never become
labels. ``tenant`` labels grow with the number of tenants: a server of thousands of
tenants should drop the label in its scrape config (``metric_relabel_configs``).

Several worker processes (``serve-api --workers N``) count in Prometheus' multiprocess
mode: each worker writes its counts into the folder ``PROMETHEUS_MULTIPROC_DIR`` names
(the supervisor makes one when it is not set), and whichever worker answers
``GET /metrics`` sums every worker's requests, latencies and decisions there.
``memhub_memories`` is the latest count any worker made (they count the same store);
``memhub_owner_loop_tasks`` and ``memhub_embed_queue_depth`` are per worker (a ``pid``
label), as of that worker's last answered request. The inspector's overview shows the
worker that answers it.

``GET /metrics`` is served by ``memhub serve-api`` (``--no-metrics`` turns it off)
and needs an operator's key (``memhub keys create --admin``): Prometheus sends it
with ``authorization: {credentials_file: ...}``. The local hub does not serve it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from starlette.exceptions import HTTPException

from memhub.embed.base import Embedder
from memhub.models import WriteResult

# Seconds. The embedder answers a query in ~11 ms and a long add in seconds; a judge over
# an LLM takes seconds more.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_bearer = HTTPBearer(auto_error=False)
COUNT_EVERY_S = 15.0  # memories per tenant are recounted at most this often
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def shared_across_processes() -> bool:
    """Whether this process counts in Prometheus' multiprocess mode (see the module docstring).

    prometheus-client decides it once, when it is first imported: the variable must be set
    before that (the supervisor of ``serve-api --workers`` sets it for its workers)."""
    return bool(os.environ.get(MULTIPROC_ENV))


class TimedEmbedder:
    """An ``Embedder`` that times each call of the one it wraps into ``histogram``."""

    def __init__(self, inner: Embedder, histogram: Histogram) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.similarity_floor = inner.similarity_floor
        self._query = histogram.labels(kind="query")
        self._passages = histogram.labels(kind="passages")

    async def embed_query(self, text: str) -> list[float]:
        with self._query.time():
            return await self.inner.embed_query(text)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        with self._passages.time():
            return await self.inner.embed_passages(texts)

    def queued(self) -> int:
        """Texts waiting for the wrapped embedder (0 when it keeps no queue)."""
        queued = getattr(self.inner, "queued", None)
        return int(queued()) if callable(queued) else 0


class Metrics:
    """The service's counters (see the module docstring).

    Args:
        service: the ``MemoryService`` whose engine is watched; its embedder is wrapped
            in a ``TimedEmbedder`` here.
    """

    def __init__(self, service: Any) -> None:
        self.service = service
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "memhub_requests",
            "Requests answered, by route template, method, status and tenant.",
            ["route", "method", "status", "tenant"],
            registry=r,
        )
        self.latency = Histogram(
            "memhub_request_duration_seconds",
            "Time to answer a request, by route template and method.",
            ["route", "method"],
            buckets=BUCKETS,
            registry=r,
        )
        self.embed = Histogram(
            "memhub_embed_duration_seconds",
            "Time of one call of the embedder, by kind (query or passages).",
            ["kind"],
            buckets=BUCKETS,
            registry=r,
        )
        self.decisions = Counter(
            "memhub_write_decisions",
            "Decisions of the write judge, by tenant and action, stored or not.",
            ["tenant", "action"],
            registry=r,
        )
        self.shared = shared_across_processes()
        self.memories = Gauge(
            "memhub_memories",
            "Stored memories per tenant (every layer and status).",
            ["tenant"],
            registry=r,
            multiprocess_mode="mostrecent",
        )
        engine = service.engine
        inner = engine.embedder
        if isinstance(inner, TimedEmbedder):  # a second app over the same service counts anew
            inner = inner.inner
        self._embedder = engine.embedder = TimedEmbedder(inner, self.embed)
        self._owner = Gauge(
            "memhub_owner_loop_tasks",
            "Operations in flight on the engine's event loop (its queue).",
            registry=r,
            multiprocess_mode="all",
        )
        self._queue = Gauge(
            "memhub_embed_queue_depth",
            "Texts waiting for the shared embedder.",
            registry=r,
            multiprocess_mode="all",
        )
        if not self.shared:  # read at scrape time; across processes, at each request's end
            self._owner.set_function(self.owner_tasks)
            self._queue.set_function(self._embedder.queued)
        self._counted_at = 0.0

    def owner_tasks(self) -> int:
        """Operations running or waiting on the engine's owner loop."""
        owner = self.service.engine.owner
        if not owner.running:
            return 0
        try:
            return len(asyncio.all_tasks(owner.loop))
        except RuntimeError:  # the loop is closing
            return 0

    def embed_queue(self) -> int:
        """Texts waiting for the shared embedder."""
        return self._embedder.queued()

    def request_done(
        self, method: str, route: str, status: int, tenant: str, seconds: float
    ) -> None:
        """Count one answered request (``logs.RequestLog`` calls it)."""
        self.requests.labels(route, method, str(status), tenant).inc()
        self.latency.labels(route, method).observe(seconds)
        if self.shared:
            self._owner.set(self.owner_tasks())
            self._queue.set(self._embedder.queued())

    def write_decisions(self, tenant: str, result: WriteResult) -> None:
        """Count the judge's decisions of one add, the ``NOOP`` and ``INVALID`` ones too."""
        for decision in result.decisions:
            self.decisions.labels(tenant, decision.action).inc()

    def decisions_of(self, tenant: str) -> dict[str, int]:
        """The decisions counted for ``tenant`` since the server started, by action."""
        return {
            sample.labels["action"]: int(sample.value)
            for metric in self.decisions.collect()
            for sample in metric.samples
            if sample.name.endswith("_total") and sample.labels.get("tenant") == tenant
        }

    def latency_of(self, route: str, method: str = "POST") -> dict[str, float] | None:
        """``count``, ``mean_ms`` and ``p95_ms`` (the upper bound of the histogram bucket that
        holds the 95th percentile) of ``route`` since the start; ``None`` if never called."""
        buckets: list[tuple[float, float]] = []
        count = total = 0.0
        for metric in self.latency.collect():
            for sample in metric.samples:
                labels = sample.labels
                if labels.get("route") != route or labels.get("method") != method:
                    continue
                if sample.name.endswith("_count"):
                    count = sample.value
                elif sample.name.endswith("_sum"):
                    total = sample.value
                elif sample.name.endswith("_bucket"):
                    buckets.append((float(labels["le"]), sample.value))
        if not count:
            return None
        p95 = next((le for le, n in sorted(buckets) if n >= 0.95 * count), float("inf"))
        return {"count": count, "mean_ms": total / count * 1000, "p95_ms": p95 * 1000}

    def overview(self, tenant: str) -> dict[str, Any]:
        """What the inspector's overview shows, from these same counters: ``tenant``'s
        decisions, the latency of search, add and recall, and the queues now."""
        routes = {
            "search": "/v1/memories/search",
            "add": "/v1/memories/",
            "recall": "/v1/hmg/recall",
            "memorize": "/v1/hmg/memorize",
        }
        return {
            "decisions": dict(sorted(self.decisions_of(tenant).items())),
            "latency": {name: self.latency_of(route) for name, route in routes.items()},
            "owner_tasks": self.owner_tasks(),
            "embed_queue": self.embed_queue(),
        }

    async def count_memories(self, tenants: Sequence[str]) -> None:
        """Recount the stored memories of ``tenants`` (at most every ``COUNT_EVERY_S``)."""
        from memhub.engine.read import browse

        now = time.monotonic()
        if now - self._counted_at < COUNT_EVERY_S or not self.service.engine.is_open:
            return
        self._counted_at = now
        for tenant in sorted(set(tenants)):
            self.memories.labels(tenant).set(await browse.count(self.service.engine, tenant))


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Response:
    """The counters in Prometheus' text format; needs an operator's key."""
    auth = request.app.state.auth
    if credentials is None or not auth.is_admin(credentials.credentials):
        raise HTTPException(
            403 if credentials else 401,
            "metrics need an operator's key (memhub keys create --admin)",
            {"WWW-Authenticate": "Bearer"},
        )
    counters: Metrics = request.app.state.metrics
    list_keys = getattr(auth, "list_keys", None)
    tenants = [k.tenant for k in list_keys()] if list_keys else []
    await counters.count_memories(tenants)
    registry = counters.registry
    if counters.shared:  # every worker's counts, from the shared folder
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
