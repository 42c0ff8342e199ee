"""``memhub-mcp``: serve memhub over MCP, on stdio (default) or streamable HTTP at ``/mcp``.

The store is opened before the transport starts, so a store held by another process
(Qdrant Edge is single-process) ends the command at once with one line on stderr.
Everything this command says goes to stderr: on stdio, stdout is the protocol.
"""

from __future__ import annotations

import argparse
import ipaddress
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from memhub import MemHubError, MemoryClient
from memhub_mcp.server import build_server, package_version

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


PROG = "memhub-mcp"
MCP_PATH = "/mcp"
EXIT_ERROR = 1
EXIT_STORE_LOCKED = 5  # as the memhub CLI
EXIT_INTERRUPTED = 130


def _say(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="memhub long-term memory as an MCP server.")
    p.add_argument(
        "--transport",
        choices=("stdio", "streamable-http"),
        default="stdio",
        help="stdio (default) for a client that starts this process; streamable-http to serve "
        f"{MCP_PATH} over HTTP",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="streamable-http: address to bind (default 127.0.0.1; anything else is reachable "
        "from the network without authentication)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=8765,
        help="streamable-http: port (default 8765; 0 picks a free one)",
    )
    p.add_argument(
        "--storage-dir", help="the embedded store's folder (default: the storage_dir setting)"
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=("debug", "info", "warning", "error"),
        help="server log level on stderr (default warning)",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    return p


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound here so that the address printed is the real one (port 0 too)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _url(sock: socket.socket) -> str:
    ip, port = sock.getsockname()[:2]
    return f"http://{f'[{ip}]' if ':' in ip else ip}:{port}{MCP_PATH}"


async def _serve_http(server: MCPServer, sock: socket.socket, host: str, log_level: str) -> None:
    import uvicorn

    # host decides the DNS-rebinding protection (on for loopback names).
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


async def _serve_stdio(
    server: MCPServer, client: MemoryClient, announce: Callable[[], None]
) -> None:
    async with anyio.create_task_group() as tg:

        async def close_on_signal(*, task_status: anyio.abc.TaskStatus[None]) -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                task_status.started()
                async for signum in signals:
                    # Cancelling cannot stop the stdin reader (a thread blocked in read), so
                    # flush and release the store here, then die of the signal as if unhandled.
                    await client.aclose()
                    signal.signal(signum, signal.SIG_DFL)
                    signal.raise_signal(signum)

        await tg.start(close_on_signal)
        announce()
        await server.run_stdio_async()  # returns when the client closes stdin
        tg.cancel_scope.cancel()


def _describe(client: MemoryClient) -> str:
    settings = client.settings
    store = settings.qdrant_url or str(Path(settings.storage_dir).resolve())
    scope = ", ".join(
        f"{k}={v}" for k, v in client.scope.payload().items() if k in ("repository", "branch")
    )
    return f"store {store}; default scope {scope or '(no git checkout)'}"


async def serve(args: argparse.Namespace) -> int:
    """Open the store, then serve until the client disconnects or a signal arrives."""
    try:
        client = MemoryClient(storage_dir=args.storage_dir)
        await client.open()
    except MemHubError as err:
        _say(f"error: {err.code}: {' '.join(str(err).split())}")
        return EXIT_STORE_LOCKED if err.code == "store_locked" else EXIT_ERROR
    try:
        server = build_server(lambda: client, log_level=args.log_level.upper())
        if args.transport == "stdio":
            await _serve_stdio(
                server, client, lambda: _say(f"serving MCP on stdio; {_describe(client)}")
            )
            return 0
        try:
            sock = _listen(args.host, args.port)
        except OSError as err:
            _say(f"error: cannot listen on {args.host}:{args.port}: {err.strerror or err}")
            return EXIT_ERROR
        with sock:
            ip = ipaddress.ip_address(sock.getsockname()[0])
            if not ip.is_loopback:
                _say(
                    f"warning: {args.host} is not a loopback address: anyone who can reach this "
                    f"port can read and change every memory (there is no authentication)"
                )
            _say(f"serving MCP on {_url(sock)} (streamable-http); {_describe(client)}")
            await _serve_http(server, sock, args.host, args.log_level)
        return 0
    finally:
        await client.aclose()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return anyio.run(serve, args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
