"""A broken API key file stops the server at start-up, and never reaches a client."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi.testclient import TestClient

from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyFileError, KeyStore

GOOD = {"id": "k_1", "tenant": "acme", "sha256": hashlib.sha256(b"mh_secret").hexdigest()}
BROKEN = {
    "not json": ("{not json", "not a valid API key file"),
    "no sha256": (json.dumps({"keys": [{"id": "k_1", "tenant": "acme"}]}), "has no sha256"),
    "tenant path": (json.dumps({"keys": [{**GOOD, "tenant": "../../etc"}]}), "invalid tenant"),
    "not a list": (json.dumps({"keys": {"k_1": GOOD}}), '"keys"'),
}


@pytest.mark.parametrize("broken", list(BROKEN))
def test_a_broken_key_file_stops_the_server_at_start_with_the_reason(
    fresh_store, make_service, broken
):
    text, reason = BROKEN[broken]
    (fresh_store / KEYS_FILE).write_text(text)
    app = create_app(service=make_service(fresh_store), auth=KeyStore(fresh_store / KEYS_FILE))
    with pytest.raises(KeyFileError, match=reason), TestClient(app):
        pass


@pytest.mark.parametrize("broken", ["not json", "no sha256"])
def test_a_key_file_broken_while_serving_answers_503_without_the_path(
    fresh_store, make_service, broken
):
    path = fresh_store / KEYS_FILE
    path.write_text(json.dumps({"keys": [GOOD]}))
    app = create_app(service=make_service(fresh_store), auth=KeyStore(path))
    with TestClient(app) as http:
        auth = {"Authorization": "Bearer mh_secret"}
        assert http.get("/v1/hmg/stats", headers=auth).status_code == 200
        path.write_text(BROKEN[broken][0] + "\n")  # a new size: the store sees the change

        answer = http.get("/v1/hmg/stats", headers=auth)

    assert answer.status_code == 503 and answer.json()["error"]["code"] == "unavailable"
    assert str(fresh_store) not in answer.text and KEYS_FILE not in answer.text


def test_serve_api_refuses_a_broken_key_file_before_listening(memhub_main, fresh_store, capsys):
    (fresh_store / KEYS_FILE).write_text(BROKEN["tenant path"][0])
    assert memhub_main(["--storage-dir", str(fresh_store), "serve-api", "--port", "8"]) == 2
    assert "invalid tenant '../../etc'" in capsys.readouterr().err
