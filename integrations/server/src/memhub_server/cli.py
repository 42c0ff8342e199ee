"""``memhub serve-api``, ``memhub serve`` and ``memhub keys``: added to the core CLI.

The core ``memhub`` command finds this module through the ``memhub.cli`` entry
point and calls ``register(add)`` like its own command modules (see
``memhub.cli.app``): ``add(name, handler, help)`` returns the command's parser.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from memhub import Settings, UsageError
from memhub_server import backup_cli

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation
    from memhub_server.auth import KeyStore


def register(add: AddCommand) -> None:
    p = add("serve-api", _serve_api, "run the multi-tenant REST service (API keys: memhub keys)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes on the port (default 1); more than 1 needs qdrant_url (a Qdrant "
        "server): the embedded store is one process's",
    )
    p.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        metavar="N",
        help="larger bodies get 413 (default 1 MiB)",
    )
    p.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="one line per request on stderr: text (default) or json (request id, tenant, "
        "route, status, duration; never content or keys)",
    )
    p.add_argument(
        "--no-metrics",
        action="store_true",
        help="do not serve GET /metrics (Prometheus; it needs an operator's key)",
    )
    p.add_argument(
        "--graceful-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="on SIGTERM, how long requests already running may take to finish (default 30)",
    )
    p.add_argument(
        "--backup-every",
        metavar="DURATION",
        default=None,
        help="back up every tenant every DURATION (24h, 30m; a plain number is hours; "
        "default off), into --backup-dir",
    )
    p.add_argument(
        "--backup-dir",
        metavar="DIR",
        default=None,
        help="where scheduled backups go (default: <storage_dir>/backups)",
    )
    p.add_argument(
        "--backup-keep",
        type=int,
        default=7,
        metavar="N",
        help="scheduled backups kept, the newest (default 7)",
    )
    _digest_option(p)

    p = add(
        "serve",
        _serve,
        "run the local hub on 127.0.0.1, so every client on this machine shares the store",
        scope=("tenant",),
    )
    p.add_argument(
        "--port", type=int, default=None, help="port (default: a free one, written to hub.json)"
    )
    _digest_option(p)

    p = add(
        "ui",
        _ui,
        "open the memory inspector: a local hub with its web page, in the browser",
        scope=("tenant",),
    )
    p.add_argument(
        "--port", type=int, default=None, help="port (default: a free one, written to hub.json)"
    )
    p.add_argument(
        "--no-browser", action="store_true", help="only print the link (e.g. on a server)"
    )

    backup_cli.register(add)

    p = add(
        "keys",
        _keys,
        "manage the REST service's API keys: create, list, revoke",
        scope=("tenant",),
    )
    p.add_argument(
        "action",
        choices=("create", "list", "revoke"),
        metavar="ACTION",
        help="create, list or revoke",
    )
    p.add_argument(
        "key_id", nargs="?", metavar="KEY_ID", help="the key to revoke (see `memhub keys list`)"
    )
    p.add_argument(
        "--admin",
        action="store_true",
        help="create: an operator's key, which may also purge the whole store",
    )
    p.add_argument(
        "--rate",
        metavar="RATE",
        help="create: this key's request rate, e.g. 20/second or '20/second;600/minute'",
    )
    p.add_argument(
        "--writes", type=int, metavar="N", help="create: this key's writes in progress at once"
    )
    p.add_argument(
        "--quota", type=int, metavar="N", help="create: stored memories its tenant may hold"
    )
    # `--tenant`: the tenant a created key serves (list and revoke refuse it).


def _digest_option(p) -> None:
    p.add_argument(
        "--digest-every",
        metavar="DURATION",
        default=None,
        help="run digest() for the scopes pending in dual mode every DURATION (24h, 30m; a "
        "plain number is hours; default 24 in dual mode, 0 turns it off)",
    )


def _schedule(inv: Invocation, service, settings: Settings, *, shared: bool = False):
    """The digest schedule asked for with ``--digest-every`` (24 hours in dual mode when not
    given), started; ``None`` when it is off."""
    from memhub_server.schedule import DUAL_DEFAULT, STATE_FILE, DigestSchedule, parse_interval

    every = getattr(inv.args, "digest_every", None)
    if every is None and settings.mode == "dual":
        every = DUAL_DEFAULT
    if every is None:
        return None
    seconds = parse_interval(every)
    if seconds == 0:
        _say("memhub: scheduled digest off (--digest-every 0)")
        return None
    state = Path(settings.storage_dir) / STATE_FILE
    schedule = DigestSchedule(
        service, seconds, lambda line: _say(f"memhub: {line}"), state, shared=shared
    )
    schedule.start()
    unit = "" if every.strip()[-1:].isalpha() else "h"
    _say(f"memhub: digest of pending scopes every {every.strip()}{unit}")
    return schedule


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check_interval(inv: Invocation) -> None:
    """A bad ``--digest-every`` fails before anything is opened or bound."""
    every = getattr(inv.args, "digest_every", None)
    if every is not None:
        from memhub_server.schedule import parse_interval

        parse_interval(every)


def _service(settings: Settings):
    from memhub_server.service import MemoryService

    return MemoryService(settings)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _serve_api(inv: Invocation) -> None:
    import uvicorn

    from memhub_server import logs, workers
    from memhub_server.app import DEFAULT_MAX_BODY, create_app
    from memhub_server.auth import KEYS_FILE, KeyStore
    from memhub_server.hub import listen
    from memhub_server.lifecycle import DrainingServer

    a = inv.args
    if not 0 < a.port < 65536:
        raise UsageError(f"--port must be 1-65535, not {a.port}")
    _check_interval(inv)
    if a.max_body_bytes is not None and a.max_body_bytes < 1:
        raise UsageError("--max-body-bytes must be positive")
    if a.graceful_timeout <= 0:
        raise UsageError("--graceful-timeout must be positive")
    if a.backup_keep < 1:
        raise UsageError("--backup-keep must be 1 or more")
    if a.backup_every is not None:
        from memhub_server.schedule import parse_interval

        parse_interval(a.backup_every)
    settings = inv.settings()
    workers.check_workers(a.workers, settings)  # before anything is opened or bound
    keys = KeyStore(Path(settings.storage_dir) / KEYS_FILE)
    keys.check()  # a broken key file fails here, with the reason, before anything listens
    if a.workers > 1:
        _serve_workers(a, settings, keys)
        return
    service = _service(settings)
    await service.open()  # a store held elsewhere fails here, before anything listens
    try:
        sock = listen(a.host, a.port)
    except OSError:
        await service.close()
        raise
    app = create_app(
        service=service,
        auth=keys,
        max_body_bytes=a.max_body_bytes or DEFAULT_MAX_BODY,
        metrics=not a.no_metrics,
    )
    _banner(a.host, a.port, settings, keys)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=a.graceful_timeout,
    )
    server = DrainingServer(config)
    schedule = _schedule(inv, service, settings, shared=True)
    backups = backup_cli.schedule(inv, service, settings, _say)
    handler = logs.configure(a.log_format)
    try:
        await server.serve(sockets=[sock])
    finally:
        for running in (schedule, backups):
            if running is not None:
                await running.stop()
        await service.close()
        logs.unconfigure(handler)


def _banner(host: str, port: int, settings: Settings, keys: KeyStore) -> None:
    if not _is_loopback(host):
        print(
            f"memhub: warning: binding {host}, not loopback: other machines can reach this "
            f"service. Every request still needs an API key; put TLS in front of it.",
            file=sys.stderr,
        )
    if not keys.list_keys():
        print(
            "memhub: warning: no API keys yet, every request will get 401: "
            "run `memhub keys create --tenant NAME`",
            file=sys.stderr,
        )
    shown = f"[{host}]" if ":" in host else host
    print(f"memhub REST API on http://{shown}:{port} (store: {settings.storage_dir})", flush=True)
    print(f"memory inspector: http://{shown}:{port}/ui/ (sign in with an API key)", flush=True)


def _serve_workers(a: argparse.Namespace, settings: Settings, keys: KeyStore) -> None:
    """``serve-api --workers N``: uvicorn's supervisor over N worker processes (``workers``)."""
    from memhub_server import workers
    from memhub_server.hub import listen

    sock = listen(a.host, a.port)
    _banner(a.host, a.port, settings, keys)
    _say(f"memhub: {a.workers} worker processes over {settings.qdrant_url}")
    config = {
        "log_level": "warning",
        "lifespan": "on",
        "timeout_graceful_shutdown": a.graceful_timeout,
    }
    try:
        workers.run(config, a.workers, sock, a)
    finally:
        sock.close()


async def _serve(inv: Invocation, *, open_browser: bool = False) -> None:
    from memhub_server.hub import LocalHub

    settings = inv.settings()  # --tenant: the hub's one tenant
    port = inv.args.port
    if port is not None and not 0 <= port < 65536:
        raise UsageError(f"--port must be 0-65535, not {port}")
    _check_interval(inv)
    hub = LocalHub(settings, port=port, service=_service(settings))
    url = await hub.start()
    print(
        f"memhub hub on {url} (store: {settings.storage_dir}; clients find it in {hub.path})",
        flush=True,
    )
    print(f"memory inspector: {hub.inspector_url}", flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(hub.inspector_url)
    schedule = _schedule(inv, hub.service, settings)
    try:
        await hub.wait()
    finally:
        if schedule is not None:
            await schedule.stop()
        await hub.stop()


async def _ui(inv: Invocation) -> None:
    await _serve(inv, open_browser=not inv.args.no_browser)


_KEYS_TAKES = {
    "create": {"--tenant", "--admin", "--rate", "--writes", "--quota"},
    "list": {"--tenant"},
    "revoke": {"KEY_ID"},
}


def _check_keys_arguments(action: str, given: dict[str, object]) -> None:
    """Each action of ``keys`` takes only its own arguments: none is accepted and ignored."""
    extra = sorted(
        name for name, value in given.items() if value and name not in _KEYS_TAKES[action]
    )
    if extra:
        raise UsageError(f"keys {action} does not take {', '.join(extra)}")


async def _keys(inv: Invocation) -> None:
    from memhub.cli import render
    from memhub_server.auth import KEYS_FILE, KeyStore
    from memhub_server.limits import Limit

    a = inv.args
    tenant = getattr(a, "tenant", None)
    _check_keys_arguments(
        a.action,
        {
            "--tenant": tenant,
            "KEY_ID": a.key_id,
            "--admin": a.admin,
            "--rate": a.rate,
            "--writes": a.writes,
            "--quota": a.quota,
        },
    )
    keys = KeyStore(Path(inv.settings().storage_dir) / KEYS_FILE)
    if a.action == "create":
        if not tenant:
            raise UsageError("keys create needs --tenant NAME")
        limits = None
        if a.rate or a.writes is not None or a.quota is not None:
            limits = Limit(rate=a.rate, writes=a.writes, quota=a.quota)
        key, created = keys.create(tenant, admin=bool(getattr(a, "admin", False)), limits=limits)
        if inv.json:
            inv.emit({"id": created.id, "tenant": created.tenant, "key": key}, render.to_json)
        else:
            print(key)
            print(
                f"memhub: key {created.id} for tenant {tenant!r}; "
                f"it is shown only now, store it safely",
                file=sys.stderr,
            )
    elif a.action == "list":
        listed = [k for k in keys.list_keys() if tenant in (None, k.tenant)]
        if inv.json:
            inv.emit({"keys": [asdict(k) for k in listed]}, render.to_json)
        else:
            print(
                render.table(
                    ["ID", "TENANT", "CREATED"], [[k.id, k.tenant, k.created_at] for k in listed]
                )
            )
    else:
        if not a.key_id:
            raise UsageError("keys revoke needs the KEY_ID (see `memhub keys list`)")
        gone = keys.revoke(a.key_id)
        print(f"memhub: revoked {gone.id} (tenant {gone.tenant!r})", file=sys.stderr)
