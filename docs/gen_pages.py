"""The reference pages read from the code at every build (an MkDocs hook), so they cannot go stale.

- ``reference/cli.md``: every command of ``memhub.cli.app.build_parser()``, its usage and options;
- ``reference/configuration.md``: every ``Settings`` field, its ``MEMHUB_*`` variable, type,
  default and description, and the variables read outside ``Settings``;
- ``reference/rest.md`` and ``reference/openapi.json``: the REST service's ``openapi()``
  document, one table per route, and the document itself to download;
- ``reference/mcp.md``: the MCP server's tools as a client lists them.

The pages are added to the build in memory (``File.generated``): nothing is written to ``docs/``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import typing
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

# variables read outside Settings, with what they do (the code that reads each is named)
EXTRA_VARIABLES = {
    "MEMHUB_CONFIG": "path of the YAML settings file (default `~/.memhub/config.yaml`; "
    "`memhub.config`)",
    "MEMHUB_CACHE_DIR": "where the faster e5 engine built on first use is kept "
    "(default `~/.cache/memhub`; `memhub.embed`)",
    "MEMHUB_E5_BUILD": "`0`: never build the faster e5 engine, run the shipped one "
    "(`memhub.embed`)",
    "MEMHUB_DEBUG": "`1`: the CLI prints the traceback of an error (`memhub.cli`)",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    pages = {
        "reference/cli.md": cli_page(),
        "reference/configuration.md": configuration_page(),
        "reference/mcp.md": mcp_page(),
    }
    spec = openapi()
    pages["reference/rest.md"] = rest_page(spec)
    pages["reference/openapi.json"] = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
    for uri, content in pages.items():
        files.append(File.generated(config, uri, content=content))
    return files


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# -- CLI ------------------------------------------------------------------------------------------


def cli_page() -> str:
    from memhub.cli.app import build_parser

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"  # argparse wraps usage lines to the terminal's width
    try:
        return _cli_page(build_parser())
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


def _cli_page(parser: argparse.ArgumentParser) -> str:
    out = [
        "# CLI reference",
        "",
        "`memhub` (also installed as `hmg`). Generated from the command's own parser: "
        "`memhub COMMAND --help` prints the same.",
        "",
        "```text",
        parser.format_usage().strip(),
        "```",
        "",
        parser.description or "",
        "",
        parser.epilog or "",
        "",
        *_options_table(parser),
        "## Commands",
        "",
    ]
    commands = _subcommands(parser)
    out += ["| command | what it does |", "|---|---|"]
    out += [f"| [`{name}`](#{name}) | {_cell(summary)} |" for name, summary, _ in commands]
    out.append("")
    for name, _, sub in commands:
        out += _command(name, sub, "###")
        for child, _, grandchild in _subcommands(sub):
            out += _command(f"{name} {child}", grandchild, "####")
    return "\n".join(out)


def _subcommands(
    parser: argparse.ArgumentParser,
) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """The commands under ``parser`` (``memhub keys`` has its own), with their summaries."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {c.dest: c.help or "" for c in action._choices_actions}
            return [(n, summaries.get(n, ""), p) for n, p in action.choices.items()]
    return []


def _command(name: str, parser: argparse.ArgumentParser, level: str) -> list[str]:
    anchor = name.replace(" ", "-")
    return [
        f"{level} `{name}` {{#{anchor}}}",
        "",
        _cell(parser.description or ""),
        "",
        "```text",
        parser.format_usage().strip(),
        "```",
        "",
        *_options_table(parser),
    ]


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        if action.option_strings:
            name = ", ".join(f"`{o}`" for o in action.option_strings)
            if action.metavar or action.nargs != 0:
                name += f" `{action.metavar or action.dest.upper()}`"
        else:
            name = f"`{action.metavar or action.dest}`"
        default = action.default
        shown = (
            ""
            if default in (None, argparse.SUPPRESS, False) or action.nargs == 0
            else f"`{default}`"
        )
        if action.choices and not isinstance(action.choices, dict):
            shown = (
                (shown + " " if shown else "")
                + "one of "
                + ", ".join(f"`{c}`" for c in action.choices)
            )
        rows.append(f"| {name} | {_cell(action.help or '')} | {shown} |")
    if not rows:
        return []
    return ["| argument | meaning | default |", "|---|---|---|", *rows, ""]


# -- configuration --------------------------------------------------------------------------------


def configuration_page() -> str:
    from memhub.config import Settings

    out = [
        "# Configuration",
        "",
        "Every key `Settings` reads. Each is resolved constructor > `MEMHUB_<KEY>` "
        "environment > `~/.memhub/config.yaml` > default; the YAML is created on first "
        "start with every key commented out, and `memhub config` prints the effective "
        "values (keys masked) with where each came from.",
        "",
        "| key and variable | type | default | description |",
        "|---|---|---|---|",
    ]
    for key, field in Settings.model_fields.items():
        kind = _type_name(field.annotation)
        default = "" if field.default is None else f"`{field.default}`"
        out.append(
            f"| `{key}`<br>`MEMHUB_{key.upper()}` | {kind} | {default} | "
            f"{_cell(field.description or '')} |"
        )
    out += [
        "",
        "## Variables read outside `Settings`",
        "",
        "| variable | meaning |",
        "|---|---|",
        *(f"| `{name}` | {text} |" for name, text in EXTRA_VARIABLES.items()),
        "",
        "## In Python",
        "",
        "::: memhub.config.Settings",
        "    options:",
        "      show_root_heading: true",
        "      members: [load, sources, masked]",
        "",
    ]
    return "\n".join(out)


def _type_name(annotation: Any) -> str:
    """``str``, ``int``, ``str | None``, ``Literal['system1', 'dual']``, ..."""
    if typing.get_origin(annotation) is typing.Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(annotation))
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return f"`{annotation.__name__}`"
    text = str(annotation).replace("typing.", "").replace("pydantic.types.", "")
    return " or ".join(f"`{part}`" for part in text.split(" | "))  # a | would end the cell


# -- REST -----------------------------------------------------------------------------------------


def openapi() -> dict[str, Any]:
    from memhub.config import Settings
    from memhub_server.app import create_app

    with tempfile.TemporaryDirectory() as folder:  # the app is built, never started
        return create_app(Settings(storage_dir=folder)).openapi()


def rest_page(spec: dict[str, Any]) -> str:
    out = [
        "# REST API",
        "",
        f"`memhub serve-api` serves these routes ({spec['info']['title']} "
        f"{spec['info']['version']}). Every `/v1` route needs an API key "
        "(`Authorization: Bearer KEY` from `memhub keys create`); errors are "
        '`{"error": {"code", "message"}}`. Generated from the service\'s OpenAPI document, '
        "which a running server also serves at `/openapi.json`: "
        "[download it](openapi.json).",
        "",
        "| method | path | summary |",
        "|---|---|---|",
    ]
    routes = [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "delete", "patch")
    ]
    for path, method, op in routes:
        out.append(
            f"| {method.upper()} | [`{path}`](#{_anchor(method, path)}) | "
            f"{_cell(op.get('summary', ''))} |"
        )
    out.append("")
    for path, method, op in routes:
        out += [
            f"## {method.upper()} `{path}` {{#{_anchor(method, path)}}}",
            "",
            _cell(op.get("description", "")),
            "",
        ]
        params = op.get("parameters", [])
        if params:
            out += ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
            for p in params:
                out.append(
                    f"| `{p['name']}` | {p['in']} | {_cell(_schema_type(p.get('schema', {})))} | "
                    f"{'yes' if p.get('required') else ''} | {_cell(p.get('description', ''))} |"
                )
            out.append("")
        body = op.get("requestBody", {}).get("content", {})
        for media, content in body.items():
            out += _schema_table(f"Body ({media})", content.get("schema", {}), spec)
        for status, answer in op.get("responses", {}).items():
            schema = answer.get("content", {}).get("application/json", {}).get("schema")
            if status.startswith("2") and schema:
                out += _schema_table(f"Answer {status}", schema, spec)
    return "\n".join(out)


def _anchor(method: str, path: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in path).strip("-")
    return f"{method}-{slug}".lower()


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " or ".join(_schema_type(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    return str(schema.get("type", "any"))


def _schema_table(title: str, schema: dict[str, Any], spec: dict[str, Any]) -> list[str]:
    name = schema["$ref"].rsplit("/", 1)[-1] if "$ref" in schema else _schema_type(schema)
    resolved = _resolve(schema, spec)
    props = resolved.get("properties", {})
    if not props:
        return [f"**{title}**: `{name}`", ""]
    required = set(resolved.get("required", []))
    out = [f"**{title}**: `{name}`", "", "| field | type | required | description |"]
    out.append("|---|---|---|---|")
    for field, prop in props.items():
        out.append(
            f"| `{field}` | {_cell(_schema_type(prop))} | {'yes' if field in required else ''} | "
            f"{_cell(prop.get('description', ''))} |"
        )
    return [*out, ""]


# -- MCP ------------------------------------------------------------------------------------------


def mcp_page() -> str:
    from memhub import MemoryClient
    from memhub_mcp.server import INSTRUCTIONS, build_server

    with tempfile.TemporaryDirectory() as folder:  # the server is built, never run
        server = build_server(lambda: MemoryClient(storage_dir=folder))
        tools = asyncio.run(server.list_tools())
    out = [
        "# MCP tools",
        "",
        "`memhub-mcp` serves memhub to MCP clients over stdio (`memhub-mcp`) or streamable "
        "HTTP (`memhub-mcp --transport streamable-http --port 8765`, at `/mcp`). "
        f"It offers {len(tools)} tools; this page is generated from the tool list the server "
        "gives its clients."
        + (
            ""
            if any(t.name == "forget_user" for t in tools)
            else " `forget_user` is deliberately not a tool: an agent must not be able to "
            "erase its user's memory."
        ),
        "",
        "The instructions the server sends a client when it connects:",
        "",
        *(f"> {line}" for line in INSTRUCTIONS.strip().splitlines()),
        "",
        "| tool | title | read-only |",
        "|---|---|---|",
    ]
    for tool in tools:
        hints = tool.annotations
        read_only = "yes" if hints is not None and hints.read_only_hint else ""
        out.append(f"| [`{tool.name}`](#{tool.name}) | {_cell(tool.title or '')} | {read_only} |")
    out.append("")
    for tool in tools:
        out += [f"## `{tool.name}` {{#{tool.name}}}", "", tool.description or "", ""]
        schema = tool.input_schema or {}
        required = set(schema.get("required", []))
        out += ["| argument | type | required | description |", "|---|---|---|---|"]
        for arg, prop in schema.get("properties", {}).items():
            out.append(
                f"| `{arg}` | {_cell(_schema_type(prop))} | {'yes' if arg in required else ''} | "
                f"{_cell(prop.get('description', ''))} |"
            )
        out.append("")
    return "\n".join(out)
