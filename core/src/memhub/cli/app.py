"""The ``memhub`` command (also installed as ``hmg``): parser, dispatch and exit codes.

One process per command, so each invocation is one ``asyncio.run``. Commands live in
the modules of ``COMMAND_MODULES``; each exposes ``register(add: AddCommand) -> None``
and calls ``add(name, handler, summary, scope=...)`` once per command, which returns the
command's ``ArgumentParser`` (already carrying the global options and the scope options it
named) to add arguments to::

    def register(add: AddCommand) -> None:
        parser = add("history", _history, "the audit trail of one memory", scope=SCOPE_KEYS)
        parser.add_argument("atom_id")

    async def _history(inv: Invocation) -> int | None:
        client = await inv.client()
        inv.emit(await client.history(inv.args.atom_id, **inv.scope), render.history)

A handler returns ``None`` (exit 0) or an exit code, and raises ``MemHubError`` for
failures: ``main`` maps them to one line on stderr and an exit code (``exit_code``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import traceback
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, entry_points, version
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

from memhub.cli import (
    capture_commands,
    hmg_commands,
    memhub_commands,
    render,
    transfer_commands,
)
from memhub.client import MemoryClient
from memhub.config import Settings
from memhub.errors import (
    ConflictError,
    InvalidInputError,
    InvalidTransitionError,
    MemHubError,
    NotFoundError,
    StoreLockedError,
    UsageError,
)
from memhub.scope import SCOPE_KEYS

if TYPE_CHECKING:
    from pydantic import BaseModel

PROG = "memhub"

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_INVALID_TRANSITION = 4
EXIT_STORE_LOCKED = 5
EXIT_INTERRUPTED = 130

_EXIT_CODES: tuple[tuple[type[MemHubError], int], ...] = (
    (InvalidInputError, EXIT_USAGE),
    (UsageError, EXIT_USAGE),
    (NotFoundError, EXIT_NOT_FOUND),
    (InvalidTransitionError, EXIT_INVALID_TRANSITION),
    (ConflictError, EXIT_INVALID_TRANSITION),
    (StoreLockedError, EXIT_STORE_LOCKED),
)

M = TypeVar("M", bound="BaseModel | dict[str, Any]")
Handler = Callable[["Invocation"], Awaitable[int | None]]


class AddCommand(Protocol):
    """``add(name, handler, summary, scope=(...))``: register one command, get its parser.

    ``scope`` names the scope options (``SCOPE_KEYS``: ``tenant``, ``user_id``, …) the
    command acts on; it is offered those and refuses the others, so no flag is accepted and
    then ignored.
    """

    def __call__(
        self, name: str, handler: Handler, summary: str, *, scope: Collection[str] = ()
    ) -> argparse.ArgumentParser: ...


# The registration point: a module here exposes ``register(add: AddCommand) -> None``.
COMMAND_MODULES: list[ModuleType] = [
    hmg_commands,
    memhub_commands,
    capture_commands,
    transfer_commands,
]
# Other distributions (memhub-server: serve-api, serve, keys) add commands through the
# entry-point group "memhub.cli": each entry point is a ``register(add)`` function.
PLUGIN_GROUP = "memhub.cli"


def exit_code(err: MemHubError) -> int:
    """The process exit code for a memhub error (1 for kinds without their own)."""
    return next((code for kind, code in _EXIT_CODES if isinstance(err, kind)), EXIT_ERROR)


@dataclass
class Invocation:
    """What a handler gets: the parsed arguments, the output, and the client on first use."""

    args: argparse.Namespace
    _client: MemoryClient | None = field(default=None, repr=False)

    @property
    def json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    @property
    def scope(self) -> dict[str, str]:
        """The scope overrides given on the command line (``*`` widens a read)."""
        return {k: v for k in SCOPE_KEYS if (v := getattr(self.args, k, None)) is not None}

    def settings(self) -> Settings:
        """The settings with the command line's ``--storage-dir`` and ``--tenant`` applied."""
        return Settings.load(
            storage_dir=getattr(self.args, "storage_dir", None),
            tenant=getattr(self.args, "tenant", None),
        )

    async def client(self) -> MemoryClient:
        """The client, opened on first use (so a locked or mismatched store fails here)."""
        if self._client is None:
            self._client = await MemoryClient(settings=self.settings()).open()
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def emit(self, result: M, view: Callable[[M], str]) -> None:
        """Print ``result``: JSON with ``--json``, else the human ``view`` of it."""
        print(render.to_json(result) if self.json else view(result))

    def confirm(self, question: str) -> bool:
        """Ask ``question`` on the terminal; a non-terminal stdin is refused (pass ``--yes``)."""
        if not sys.stdin.isatty():
            raise UsageError("stdin is not a terminal, so nobody can confirm: pass --yes")
        print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse would print the usage block and sys.exit(2); we want one line and a code.
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _version() -> str:
    try:
        return version("memhub")
    except PackageNotFoundError:
        return "unknown"


def _global_options() -> _Parser:
    """Options every command accepts, before or after its name.

    Their default is SUPPRESS so a subcommand that was not given one does not
    overwrite the value given before the subcommand.
    """
    common = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
    opts = common.add_argument_group("global options")
    opts.add_argument("--storage-dir", metavar="DIR", help="the embedded store's folder")
    opts.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print results as JSON"
    )
    return common


def _scope_options(parser: argparse.ArgumentParser, keys: Collection[str]) -> None:
    """The ``--user-id``-style options of ``keys`` (SUPPRESS default, like the global ones)."""
    group = parser.add_argument_group("scope")
    for key in SCOPE_KEYS:
        if key in keys:
            group.add_argument(
                _flag(key),
                dest=key,
                default=argparse.SUPPRESS,
                metavar=key.split("_")[0].upper(),
                help=f"scope override for {key}"
                + ("; '*' widens a read" if key in ("workspace", "repository", "branch") else ""),
            )


def _flag(key: str) -> str:
    return f"--{key.replace('_', '-')}"


def _refuse_unused_scope(args: argparse.Namespace) -> None:
    """A scope option given before a command that does not act on it is an error, not a no-op."""
    unused = [k for k in SCOPE_KEYS if hasattr(args, k) and k not in args.scope_keys]
    if unused:
        flags = ", ".join(_flag(k) for k in unused)
        raise UsageError(
            f"'{args.command}' does not take {flags} (see '{PROG} {args.command} --help')"
        )


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options, then every command of ``COMMAND_MODULES``."""
    common = _global_options()
    parser = _Parser(
        prog=PROG,
        parents=[common],
        description="Long-term memory for AI agents (also installed as `hmg`).",
        epilog="exit codes: 0 ok, 1 error, 2 usage, 3 not found, "
        "4 invalid transition or conflict, 5 store locked",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    _scope_options(parser, SCOPE_KEYS)  # before the command: checked against it once parsed
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")

    def add(
        name: str, handler: Handler, summary: str, *, scope: Collection[str] = ()
    ) -> argparse.ArgumentParser:
        if unknown := set(scope) - set(SCOPE_KEYS):
            raise ValueError(f"command {name!r}: no scope keys {sorted(unknown)}")
        sub = commands.add_parser(name, parents=[common], help=summary, description=summary)
        _scope_options(sub, scope)
        sub.set_defaults(handler=handler, scope_keys=tuple(scope))
        return sub

    for module in COMMAND_MODULES:
        module.register(add)
    for plugin in entry_points(group=PLUGIN_GROUP):
        plugin.load()(add)
    return parser


def _fail(err: BaseException, code: int) -> int:
    if os.environ.get("MEMHUB_DEBUG") == "1":
        traceback.print_exception(err)
    message = " ".join(str(err).split()) or type(err).__name__
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


async def _run(handler: Handler, inv: Invocation) -> int | None:
    try:
        return await handler(inv)
    finally:
        await inv.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (the console scripts pass it to ``sys.exit``)."""
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as done:  # --help, --version
            return done.code if isinstance(done.code, int) else EXIT_OK
        handler: Any = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        _refuse_unused_scope(args)
        return asyncio.run(_run(handler, Invocation(args))) or EXIT_OK
    except MemHubError as err:
        return _fail(err, exit_code(err))
    except OSError as err:  # e.g. an unwritable storage dir: a message, not a traceback
        return _fail(err, EXIT_ERROR)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
