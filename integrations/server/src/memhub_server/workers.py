"""``memhub serve-api --workers N``: N processes answering on one port, over one Qdrant.

uvicorn's supervisor binds the port, starts N worker processes (each a fresh
interpreter) and restarts one that dies. Each worker builds its app here, with
:func:`create_worker_app`, from the options ``serve-api`` passed in ``OPTIONS_ENV``
and the same settings resolution as the command (environment, config file, the
command line's ``--storage-dir``): no secret travels through that variable.

What the workers share, and how (``docs/deploy.md``):

- the store: a Qdrant server (``qdrant_url``), required: Qdrant Edge is one process
  per store. Conditional writes (``rev``) make one of two racing writers win.
- API keys: ``<storage_dir>/api_keys.json``, re-read by each worker when it changes.
- the digest and backup schedules: every worker runs them, and each round is claimed
  in the store first (``schedule.claim_round``), so one worker does it.
- metrics: Prometheus' multiprocess mode in a folder of the supervisor's
  (``PROMETHEUS_MULTIPROC_DIR``): any worker's ``/metrics`` sums every worker's counts.
- rate windows: per worker unless ``rate_limit_storage`` is shared (``limits``).
"""

from __future__ import annotations

import json
import os
import sys
from argparse import Namespace
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from memhub import Settings, UsageError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from memhub.cli.app import Invocation

OPTIONS_ENV = "MEMHUB_SERVE_API_WORKER"
"""The worker's options (JSON), set by ``serve-api --workers`` for its workers."""
FACTORY = "memhub_server.workers:create_worker_app"


def check_workers(workers: int, settings: Settings) -> None:
    """``UsageError`` unless ``workers`` processes can share the store ``settings`` names."""
    if workers < 1:
        raise UsageError(f"--workers must be 1 or more, not {workers}")
    if workers > 1 and not settings.qdrant_url:
        raise UsageError(
            f"--workers {workers} needs a Qdrant server (qdrant_url, MEMHUB_QDRANT_URL): the "
            f"embedded store ({settings.storage_dir}) is one process's; run one worker, or "
            "move the store to a Qdrant server (memhub export / import)"
        )


def worker_options(args: Namespace) -> str:
    """The options of ``serve-api`` a worker needs, as ``OPTIONS_ENV``'s JSON."""
    names = (
        "storage_dir",
        "tenant",
        "max_body_bytes",
        "no_metrics",
        "log_format",
        "digest_every",
        "backup_every",
        "backup_dir",
        "backup_keep",
    )
    return json.dumps({name: getattr(args, name, None) for name in names})


def create_worker_app() -> FastAPI:
    """One worker's app (uvicorn calls it in each worker process): the app of ``serve-api``,
    which also runs the schedules while it serves."""
    from memhub_server import backup_cli, logs
    from memhub_server.app import DEFAULT_MAX_BODY, create_app
    from memhub_server.auth import KEYS_FILE, KeyStore
    from memhub_server.cli import _say, _schedule
    from memhub_server.service import MemoryService

    raw = os.environ.get(OPTIONS_ENV)
    if not raw:
        raise UsageError(f"{FACTORY} runs under `memhub serve-api --workers N` ({OPTIONS_ENV})")
    args = Namespace(**json.loads(raw))
    settings = Settings.load(storage_dir=args.storage_dir, tenant=args.tenant)
    service = MemoryService(settings)
    app = create_app(
        service=service,
        auth=KeyStore(Path(settings.storage_dir) / KEYS_FILE),
        max_body_bytes=args.max_body_bytes or DEFAULT_MAX_BODY,
        metrics=not args.no_metrics,
    )
    opened = app.router.lifespan_context
    inv = cast("Invocation", SimpleNamespace(args=args))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
        async with opened(app) as state:
            handler = logs.configure(args.log_format)
            running = [
                _schedule(inv, service, settings, shared=True),
                backup_cli.schedule(inv, service, settings, _say),
            ]
            try:
                yield state
            finally:
                for schedule in running:
                    if schedule is not None:
                        await schedule.stop()
                logs.unconfigure(handler)
                _say(f"memhub: worker {os.getpid()} stopped")

    app.router.lifespan_context = lifespan
    return app


def run(config_kwargs: dict[str, Any], workers: int, sock: Any, args: Namespace) -> None:
    """Start ``workers`` processes on ``sock`` and supervise them until SIGINT / SIGTERM."""
    import tempfile

    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from memhub.errors import MemHubError

    os.environ[OPTIONS_ENV] = worker_options(args)
    own_dir = None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        own_dir = tempfile.TemporaryDirectory(prefix="memhub-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = own_dir.name
    config = uvicorn.Config(FACTORY, factory=True, workers=workers, **config_kwargs)
    supervisor = Multiprocess(config, sockets=[sock])
    try:
        supervisor.run()
    finally:
        if own_dir is not None:
            del os.environ["PROMETHEUS_MULTIPROC_DIR"]
            own_dir.cleanup()
        print(f"memhub: {workers} workers stopped", file=sys.stderr, flush=True)
    if any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes):
        # e.g. the Qdrant server cannot be reached: the worker said why, above
        raise MemHubError("a worker could not start (see its error above); nothing is served")
