"""One definition of the API: ``MemoryAPI``'s operations, and every door checked against them.

The client, its sync face and the remote client are derived from ``MemoryAPI`` (their parity
tests are in ``tests/core/test_api_contract.py``, ``tests/core/test_sync_client.py`` and
``tests/integrations/server/test_server_remote.py``).
The REST routes and the MCP tools keep schemas of their own, written for their readers
(limits, descriptions a model reads), so this test walks every operation and names each
parameter a door lacks, adds, requires differently or defaults differently, and each
answer that is not the SDK's own model.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

from memhub import Settings
from memhub.api import MemoryAPI
from memhub.remote import ROUTES
from memhub.scope import SCOPE_KEYS
from memhub_mcp import TOOL_NAMES, build_server
from memhub_mcp.tools import MemoryTools
from memhub_server.app import create_app
from memhub_server.auth import KeyStore

REQUIRED = object()  # the "default" of a parameter without one

# Arguments that never leave the caller's process: a progress callback, a local file.
LOCAL = {
    "purge": {"progress"},
    "export": {"dest", "progress"},
    "import_": {"source", "from_", "include_deleted", "progress"},
}
# The two operations that stream rather than being one JSON request (``ROUTES`` has the rest).
STREAMED = {"export": ("get", "/v1/export"), "import_": ("post", "/v1/import")}
REST_ONLY = {"import_": {"first_line"}}  # where a chunk of an import starts, for its errors

# Operations that are deliberately not MCP tools, and why.
NOT_TOOLS = {
    "session_context": "served as the session_context prompt and memhub://session-context",
    "conversation": "a session's raw turns are for chat UIs; search_conversation serves models",
    "get": "models find memories with recall and search",
    "list": "models find memories with recall and search",
    "update": "models change memories with correct, which keeps the audit trail",
    "delete": "models retire memories with correct or govern",
    "forget_user": "an agent must not be able to erase its user's memory",
    "digest": "operator work (memhub serve --digest-every)",
    "purge": "operator work: it rewrites the whole store",
    "export": "reads and writes files on the server's disk",
    "import_": "reads and writes files on the server's disk",
}
# Scope keys an MCP tool does not offer: the server's own checkout decides them.
MCP_FIXED = {"workspace"}


def _operations() -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in inspect.getmembers(MemoryAPI, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }


def _sdk_parameters(name: str, signature: inspect.Signature) -> dict[str, Any]:
    """The operation's parameters by name, ``**scope`` spelled out; the tenant is never a
    field at a door (the API key, or the MCP server's settings, decide it)."""
    out: dict[str, Any] = {}
    for p in list(signature.parameters.values())[1:]:
        if p.kind is p.VAR_KEYWORD:
            out.update(dict.fromkeys(SCOPE_KEYS, None))
        elif p.name not in LOCAL.get(name, ()):
            out[p.name] = REQUIRED if p.default is p.empty else p.default
    out.pop("tenant", None)
    return out


def _schema_fields(schema: dict[str, Any]) -> dict[str, Any]:
    required = set(schema.get("required", ()))
    return {
        name: REQUIRED if name in required else prop.get("default")
        for name, prop in schema.get("properties", {}).items()
    }


def _drift(door: str, name: str, sdk: dict[str, Any], fields: dict[str, Any]) -> list[str]:
    lines = [f"{door} {name}: lacks {p!r}" for p in sorted(set(sdk) - set(fields))]
    lines += [
        f"{door} {name}: takes {p!r}, which the SDK has not" for p in sorted(set(fields) - set(sdk))
    ]
    for p in sorted(set(sdk) & set(fields)):
        if (sdk[p] is REQUIRED) != (fields[p] is REQUIRED):
            lines.append(f"{door} {name}: {p!r} is required in one and not the other")
        elif sdk[p] != fields[p]:
            lines.append(f"{door} {name}: {p!r} defaults to {fields[p]!r}, the SDK to {sdk[p]!r}")
    return lines


# -- REST --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openapi(tmp_path_factory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("definition")
    app = create_app(Settings(storage_dir=str(folder / "store")), auth=KeyStore(folder / "k.json"))
    return app.openapi()  # built from the routes alone: nothing is opened


def _rest_fields(doc: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    operation = doc["paths"][path][method]
    fields = {
        p["name"]: REQUIRED if p.get("required") else p["schema"].get("default")
        for p in operation.get("parameters", ())
    }
    content = operation.get("requestBody", {}).get("content", {})
    ref = content.get("application/json", {}).get("schema", {}).get("$ref")
    if ref:
        fields.update(_schema_fields(doc["components"]["schemas"][ref.rsplit("/", 1)[-1]]))
    return fields


def test_every_operation_has_one_rest_route():
    assert set(ROUTES) | set(STREAMED) == set(_operations())


def test_rest_routes_take_every_parameter_of_the_sdk_with_its_defaults(openapi):
    drift = []
    for name, signature in sorted(_operations().items()):
        if name in STREAMED:
            method, path = STREAMED[name]
        else:
            method, path = ROUTES[name].method.lower(), ROUTES[name].path
        if path not in openapi["paths"] or method not in openapi["paths"][path]:
            drift.append(f"REST {name}: no route {method.upper()} {path}")
            continue
        fields = _rest_fields(openapi, method, path)
        for extra in REST_ONLY.get(name, ()):
            fields.pop(extra, None)
        drift += _drift("REST", name, _sdk_parameters(name, signature), fields)
    assert not drift, "\n".join(drift)


# What a route answers when the SDK call returns no model of its own.
REST_ANSWERS = {"update": "UpdateResult", "delete": "DeleteResult", "purge": "PurgeResult"}


def _model_name(returns: Any) -> str | None:
    """The SDK model an operation returns (``list[X]``: X); ``None`` for a plain value."""
    inner = typing.get_args(returns)[0] if typing.get_origin(returns) is list else returns
    return getattr(inner, "__name__", None) if inspect.isclass(inner) else None


def _returns(name: str) -> Any:
    return typing.get_type_hints(getattr(MemoryAPI, name))["return"]


def test_rest_routes_answer_with_the_sdk_models(openapi):
    drift = []
    for name, route in sorted(ROUTES.items()):
        expected = REST_ANSWERS.get(name) or _model_name(_returns(name))
        answer = openapi["paths"][route.path][route.method.lower()]["responses"]["200"]
        schema = answer["content"]["application/json"]["schema"]
        ref = schema.get("$ref") or schema.get("items", {}).get("$ref", "")
        if ref.rsplit("/", 1)[-1] != expected:
            drift.append(f"REST {name}: answers {ref or schema}, the SDK returns {expected}")
    assert not drift, "\n".join(drift)


# -- MCP ---------------------------------------------------------------------------


@pytest.fixture
async def tools() -> dict[str, dict[str, Any]]:
    server = build_server(lambda: None)  # the tools' schemas need no client
    return {tool.name: tool.input_schema for tool in await server.list_tools()}


def test_every_operation_is_a_tool_or_says_why_not():
    assert set(TOOL_NAMES).isdisjoint(NOT_TOOLS)
    assert set(TOOL_NAMES) | set(NOT_TOOLS) == set(_operations())


async def test_mcp_tools_take_every_parameter_of_the_sdk_with_its_defaults(tools):
    drift = []
    operations = _operations()
    for name in TOOL_NAMES:
        sdk = _sdk_parameters(name, operations[name])
        for key in MCP_FIXED:
            sdk.pop(key, None)
        drift += _drift("MCP", name, sdk, _schema_fields(tools[name]))
    assert not drift, "\n".join(drift)


def test_mcp_tools_answer_with_the_sdk_models():
    for name in TOOL_NAMES:
        returns = typing.get_type_hints(getattr(MemoryTools, name), include_extras=True)["return"]
        assert returns.__metadata__ == (_returns(name),), name  # the tool's outputSchema


def test_the_drift_check_names_what_differs():
    sdk = {"query": REQUIRED, "limit": 10, "user_id": None}
    assert _drift("MCP", "recall", sdk, {"query": REQUIRED, "limit": 5, "extra": None}) == [
        "MCP recall: lacks 'user_id'",
        "MCP recall: takes 'extra', which the SDK has not",
        "MCP recall: 'limit' defaults to 5, the SDK to 10",
    ]
