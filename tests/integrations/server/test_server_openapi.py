"""The OpenAPI document is complete, and the app keeps it: schemathesis finds no 5xx, no schema
violation.
"""

from __future__ import annotations

import uuid

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore

# POST /v1/import takes JSON Lines: sent as the text they are
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
]
ROUTES = {
    ("post", "/v1/memories/"): "WriteResult",
    ("get", "/v1/memories/"): "MemoryItem",
    ("post", "/v1/memories/search"): "SearchResult",
    ("post", "/v1/memories/search-conversation"): "ConversationResult",
    ("post", "/v1/memories/conversation"): "ConversationResult",
    ("get", "/v1/memories/{memory_id}"): "MemoryItem",
    ("get", "/v1/memories/{memory_id}/history"): "HistoryResult",
    ("put", "/v1/memories/{memory_id}"): "UpdateResult",
    ("delete", "/v1/memories/{memory_id}"): "DeleteResult",
    ("delete", "/v1/users/{user_id}"): "ForgetResult",
    ("post", "/v1/hmg/memorize"): "MemorizeResult",
    ("post", "/v1/hmg/recall"): "RecallResult",
    ("post", "/v1/hmg/correct"): "CorrectResult",
    ("post", "/v1/hmg/govern"): "GovernResult",
    ("post", "/v1/hmg/handoff"): "HandoffResult",
    ("post", "/v1/hmg/context"): "SessionContext",
    ("post", "/v1/hmg/purge"): "PurgeResult",
    ("post", "/v1/hmg/digest"): "DigestResult",
    ("get", "/v1/hmg/history/{atom_id}"): "HistoryResult",
    ("get", "/v1/hmg/stats"): "Stats",
    ("get", "/health"): "Health",
    ("get", "/ready"): "Readiness",
    ("get", "/v1/export"): None,  # JSON Lines, one memory a line (memhub.engine.transfer.jsonl)
    ("post", "/v1/import"): "ImportResult",
}
BODIES = {
    "/v1/memories/": "AddRequest",
    "/v1/memories/search": "SearchRequest",
    "/v1/memories/search-conversation": "SearchConversationRequest",
    "/v1/memories/conversation": "ConversationRequest",
    "/v1/memories/{memory_id}": "UpdateRequest",
    "/v1/hmg/memorize": "MemorizeRequest",
    "/v1/hmg/recall": "RecallRequest",
    "/v1/hmg/correct": "CorrectRequest",
    "/v1/hmg/govern": "GovernRequest",
    "/v1/hmg/handoff": "HandoffRequest",
    "/v1/hmg/context": "ScopeFields",
}


@pytest.fixture(scope="module")
def openapi_app(scratch, empty_store, copy_store, request):
    store = copy_store(empty_store, scratch / uuid.uuid4().hex / "store")
    keys = KeyStore(store / KEYS_FILE)
    key, _ = keys.create("fuzz")
    from memhub import Settings
    from memhub.testing import HashEmbedder
    from memhub_server.service import MemoryService

    service = MemoryService(Settings(storage_dir=str(store)), embed=HashEmbedder())
    app = create_app(service=service, auth=keys)
    with TestClient(app):  # runs the lifespan: the store opens here and closes at the end
        yield app, key


def _refs(node) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def test_openapi_lists_every_route_with_request_and_response_schemas(openapi_app):
    app, _ = openapi_app
    doc = app.openapi()
    listed = {(method, path) for path, ops in doc["paths"].items() for method in ops}
    assert listed == set(ROUTES)
    for (method, path), model in ROUTES.items():
        op = doc["paths"][path][method]
        if model is not None:
            assert model in _refs(op["responses"]["200"]), (method, path)
        if path not in ("/health", "/ready"):
            assert _refs(op["responses"]["404"]) == {"ErrorResponse"}
            assert _refs(op["responses"]["422"]) == {
                "ErrorResponse"
            }  # ours, not FastAPI's default shape
            assert op["security"] == [{"HTTPBearer": []}]
        if method in ("post", "put") and path in BODIES:
            assert _refs(op["requestBody"]) == {BODIES[path]}, (method, path)
    assert set(doc["components"]["schemas"]) >= set(ROUTES.values()) - {None} | set(
        BODIES.values()
    ) | {"ErrorResponse"}
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


@pytest.fixture(scope="module")
def api_schema(openapi_app):
    app, _ = openapi_app
    return schemathesis.openapi.from_asgi("/openapi.json", app)


# schemathesis' pytest plugin (`schema.parametrize`, `from_fixture`) does not run under
# pytest 9, so each operation's strategy is driven by Hypothesis here directly.
@pytest.mark.parametrize(
    "mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value
)
@pytest.mark.parametrize(("method", "path"), sorted(ROUTES), ids=lambda v: v)
def test_fuzzed_requests_get_no_server_error_and_match_the_schema(
    api_schema, openapi_app, method, path, mode
):
    if path in ("/health", "/ready") and mode is GenerationMode.NEGATIVE:
        pytest.skip(f"{path} takes no input, so there is no invalid input to send")
    _, key = openapi_app
    operation = api_schema[path][method.upper()]
    auth = {"Authorization": f"Bearer {key}"}

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=8,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case) -> None:
        case.call_and_validate(headers=auth, checks=CHECKS)

    run()
