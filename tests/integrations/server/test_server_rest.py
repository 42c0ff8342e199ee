"""The REST API end to end on a real Edge store: every route, tenants, keys, limits, errors."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

MISSING = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a valid id no memory has
PG16 = "项目用 PostgreSQL 16 做主数据库，不用 MongoDB"


def ok(response):
    assert response.status_code == 200, response.text
    return response.json()


def error(response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    return body["error"]["message"]


# -- the MemHub face ------------------------------------------------------------------


def test_an_add_names_its_memories_and_their_history_is_at_their_path(api, api_b, uid):
    written = ok(api.post("/v1/memories/", json={"content": "我住在上海", "user_id": uid}))
    moved = ok(api.post("/v1/memories/", json={"content": "我上个月搬到北京了", "user_id": uid}))
    (first,), (now,) = written["memory_ids"], moved["memory_ids"]
    # memory_id is the raw turn; memory_ids are the facts made of it
    assert ok(api.get(f"/v1/memories/{written['memory_id']}"))["layer"] == "raw"
    assert (
        ok(api.get(f"/v1/memories/{now}", params={"user_id": uid}))["content"]
        == "我上个月搬到北京了"
    )

    history = ok(api.get(f"/v1/memories/{now}/history", params={"user_id": uid}))
    assert history == ok(api.get(f"/v1/hmg/history/{now}", params={"user_id": uid}))
    assert first in json.dumps(history)  # it names the memory it superseded
    # the same scope rules: another user, another tenant or no such memory is a 404 alike
    missing = error(
        api.get(f"/v1/memories/{MISSING}/history", params={"user_id": uid}), 404, "not_found"
    )
    assert error(
        api.get(f"/v1/memories/{now}/history", params={"user_id": "mallory"}), 404, "not_found"
    ) == missing.replace(MISSING, now)
    error(api_b.get(f"/v1/memories/{now}/history"), 404, "not_found")


def test_add_content_then_search_get_list(api, uid):
    written = ok(
        api.post(
            "/v1/memories/",
            json={
                "content": "我最爱的编程语言是 Java，已经用了5年。",
                "user_id": uid,
                "metadata": {"topic": "lang"},
            },
        )
    )
    assert written["commit_passed"] and written["raw_ids"] == [written["memory_id"]]
    fact_id = written["decisions"][0]["memory_id"]

    found = ok(
        api.post("/v1/memories/search", json={"query": "用户的编程语言偏好", "user_id": uid})
    )
    groups = found["memories"]
    assert [m["id"] for m in groups["profile"] + groups["proactive"] + groups["normal"]] == [
        fact_id
    ]
    assert groups["procedures"] is None  # only when asked

    filtered = ok(
        api.post(
            "/v1/memories/search",
            json={"query": "编程语言", "user_id": uid, "filters": {"topic": "db"}},
        )
    )
    assert not any(filtered["memories"][g] for g in ("profile", "proactive", "normal"))

    item = ok(api.get(f"/v1/memories/{fact_id}", params={"user_id": uid}))
    assert item["content"].startswith("我最爱的编程语言是 Java") and item["metadata"] == {
        "topic": "lang"
    }

    listed = ok(api.get("/v1/memories/", params={"user_id": uid}))
    assert [m["id"] for m in listed] == [fact_id]


def test_add_messages_drops_system_and_tool_output(api, uid):
    messages = [
        {"role": "system", "content": "you are a helpful bot"},
        {"role": "user", "content": "我住在上海"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "SECRET TOOL OUTPUT"},
        {"role": "assistant", "content": "好的，记住了"},
    ]
    written = ok(
        api.post("/v1/memories/", json={"messages": messages, "user_id": uid, "session_id": "s1"})
    )
    assert len(written["raw_ids"]) == 2  # the user turn and the final answer

    turns = ok(
        api.post(
            "/v1/memories/search-conversation",
            json={"query": "上海", "user_id": uid, "session_id": "s1"},
        )
    )
    said = [t["content"] for t in turns["turns"]]
    assert "我住在上海" in said and not any("SECRET" in t for t in said)


def test_update_returns_a_new_id_and_delete_archives(api, uid):
    written = ok(api.post("/v1/memories/", json={"content": "我住在上海", "user_id": uid}))
    old = written["decisions"][0]["memory_id"]
    updated = ok(api.put(f"/v1/memories/{old}", json={"content": "我住在北京", "user_id": uid}))
    assert updated["replaces"] == old and updated["id"] != old

    new = ok(api.get(f"/v1/memories/{updated['id']}"))
    assert new["content"] == "我住在北京" and new["evolution_chain"] == [old]
    assert ok(api.get(f"/v1/memories/{old}"))["status"] == "superseded"

    assert ok(api.delete(f"/v1/memories/{updated['id']}", params={"user_id": uid})) == {
        "id": updated["id"],
        "deleted": True,
    }
    assert ok(api.get("/v1/memories/", params={"user_id": uid})) == []
    history = ok(api.get("/v1/memories/", params={"user_id": uid, "include_history": "true"}))
    assert {m["id"]: m["status"] for m in history} == {old: "superseded", updated["id"]: "archived"}


def test_memhub_routes_are_user_centric(api, uid):
    """A user's memories follow the user, not a checkout: branch/workspace only
    version procedures.
    """
    ok(
        api.post(
            "/v1/memories/",
            json={
                "content": "部署脚本用 make deploy",
                "user_id": uid,
                "workspace_id": "~/code/web",
                "branch": "main",
            },
        )
    )
    found = ok(api.post("/v1/memories/search", json={"query": "部署脚本", "user_id": uid}))
    assert found["memories"]["normal"] + found["memories"]["profile"]
    error(
        api.post(
            "/v1/memories/search",
            json={"query": "部署脚本", "user_id": uid, "repository": "acme/api"},
        ),
        422,
        "invalid_input",
    )


def test_search_and_list_narrow_to_a_session_only_when_asked(api, uid):
    for session, text in (("a", "我养了一只橘猫"), ("b", "我的猫叫团子")):
        ok(api.post("/v1/memories/", json={"content": text, "user_id": uid, "session_id": session}))

    def searched(**narrow: str) -> list[str]:
        body = {"query": "猫", "user_id": uid, **narrow}
        groups = ok(api.post("/v1/memories/search", json=body))["memories"].values()
        return sorted(m["session_id"] for group in groups if group for m in group)

    def listed(**narrow: str) -> list[str]:
        items = ok(api.get("/v1/memories/", params={"user_id": uid, **narrow}))
        return sorted(m["session_id"] for m in items)

    assert searched() == ["a", "b"]
    assert searched(session_id="b") == ["b"]
    assert listed() == ["a", "b"]
    assert listed(session_id="a") == ["a"]


# -- the HMG face ---------------------------------------------------------------------


def test_hmg_round_trip(api, uid):
    scope = {"user_id": uid, "repository": "acme/db"}
    first = ok(api.post("/v1/hmg/memorize", json={"content": PG16, **scope}))
    assert first["effect"] == "applied"
    assert ok(api.post("/v1/hmg/memorize", json={"content": PG16, **scope}))["effect"] == "no_op"

    atoms = ok(api.post("/v1/hmg/recall", json={"query": "数据库选型", "limit": 5, **scope}))[
        "atoms"
    ]
    assert atoms[0]["atom_id"] == first["atom_id"]

    replaced = ok(
        api.post(
            "/v1/hmg/correct",
            json={
                "target_atom": first["atom_id"],
                "action": "replace",
                "reason": "升级",
                "new_content": "项目用 PostgreSQL 17",
                **scope,
            },
        )
    )
    assert replaced["new_atom_id"] and replaced["status"] == "superseded"
    sealed = ok(
        api.post(
            "/v1/hmg/govern",
            json={
                "target_atom": replaced["new_atom_id"],
                "action": "seal",
                "reason": "合规",
                **scope,
            },
        )
    )
    assert sealed["exposure_state"] == "sealed"

    trail = ok(api.get(f"/v1/hmg/history/{replaced['new_atom_id']}", params=scope))
    assert trail["current"]["content"] == "[governed payload hidden: sealed]"
    assert trail["relations"]["supersedes"] == [first["atom_id"]]
    assert trail["exposure_history"][-1]["from"] == "visible"  # the alias, not from_

    ok(api.post("/v1/hmg/handoff", json={"summary": "迁移到 PG17 做了一半，下一步跑回归", **scope}))
    context = ok(api.post("/v1/hmg/context", json=scope))
    assert context["handoff"]["content"].startswith("迁移到 PG17")

    stats = ok(api.get("/v1/hmg/stats"))
    assert stats["atoms"] >= 3 and stats["edges"] >= 1
    assert (
        api.post("/v1/hmg/purge").status_code == 403
    )  # a tenant's key cannot rewrite the shared store
    assert (
        ok(api.get(f"/v1/hmg/history/{replaced['new_atom_id']}", params=scope))["current"][
            "exposure_state"
        ]
        == "sealed"
    )


def test_health_needs_no_key(server):
    http, _ = server
    assert http.get("/health").json()["status"] == "ok"


# -- forgetting a user ----------------------------------------------------------------


def _add(caller, user: str, content: str, **fields: str) -> dict:
    return ok(caller.post("/v1/memories/", json={"content": content, "user_id": user, **fields}))


def _listed(caller, user: str, app: str = "default") -> list[str]:
    params = {"user_id": user, "app_ids": [app], "include_history": True}
    return [m["content"] for m in ok(caller.get("/v1/memories/", params=params))]


def test_deleting_a_user_erases_them_in_the_keys_tenant_only(api, api_b, uid):
    other = f"{uid}-other"
    home = _add(api, uid, "我住在上海")
    _add(api, uid, "我住在成都", app_id="travel")
    ok(api.post("/v1/hmg/memorize", json={"content": "周会改到周三", "user_id": uid}))
    _add(api, other, "我住在北京")
    _add(api_b, uid, "我住在广州")

    travel = ok(api.delete(f"/v1/users/{uid}", params={"app_id": "travel"}))
    assert travel == {"user_id": uid, "tombstoned": 2, "threads": 0}  # the raw record and the fact
    assert _listed(api, uid, "travel") == [] and _listed(api, uid) == ["周会改到周三", "我住在上海"]
    assert ok(api.delete(f"/v1/users/{uid}")) == {"user_id": uid, "tombstoned": 3, "threads": 0}
    assert ok(api.delete(f"/v1/users/{uid}")) == {"user_id": uid, "tombstoned": 0, "threads": 0}

    assert _listed(api, uid) == []
    turns = ok(api.post("/v1/memories/search-conversation", json={"query": "上海", "user_id": uid}))
    assert turns["turns"] == []
    fact = home["decisions"][0]["memory_id"]
    assert ok(api.get(f"/v1/memories/{fact}"))["content"] == "[governed payload hidden: tombstoned]"
    assert _listed(api, other) == ["我住在北京"]
    assert _listed(api_b, uid) == ["我住在广州"]


def test_deleting_a_user_validates_like_every_route(server, api):
    error(api.delete("/v1/users/" + "u" * 257), 422, "invalid_input")
    error(api.delete("/v1/users/u1", params={"app_id": ""}), 422, "invalid_input")
    error(api.delete("/v1/users/%20%20"), 400, "invalid_input")
    http, _ = server
    error(http.delete("/v1/users/u1"), 401, "unauthorized")


# -- tenants and keys -----------------------------------------------------------------


def test_another_tenants_ids_are_not_found_and_never_searched(api, api_b, uid):
    written = ok(api.post("/v1/memories/", json={"content": "我的银行是招商银行", "user_id": uid}))
    fact = written["decisions"][0]["memory_id"]
    atom = ok(
        api.post("/v1/hmg/memorize", json={"content": "A 公司的发布窗口是周四", "user_id": uid})
    )["atom_id"]

    for path in (f"/v1/memories/{fact}", f"/v1/hmg/history/{atom}"):
        error(api_b.get(path), 404, "not_found")
    error(api_b.put(f"/v1/memories/{fact}", json={"content": "改掉它"}), 404, "not_found")
    error(api_b.delete(f"/v1/memories/{fact}"), 404, "not_found")
    error(
        api_b.post(
            "/v1/hmg/correct", json={"target_atom": atom, "action": "negate", "reason": "x"}
        ),
        404,
        "not_found",
    )
    error(
        api_b.post(
            "/v1/hmg/govern", json={"target_atom": atom, "action": "tombstone", "reason": "x"}
        ),
        404,
        "not_found",
    )

    # Same user id, other tenant: nothing comes back from any read.
    found = ok(api_b.post("/v1/memories/search", json={"query": "银行", "user_id": uid}))[
        "memories"
    ]
    assert not any(found[g] for g in ("profile", "proactive", "normal"))
    assert (
        ok(api_b.post("/v1/memories/search-conversation", json={"query": "银行", "user_id": uid}))[
            "turns"
        ]
        == []
    )
    assert ok(api_b.get("/v1/memories/", params={"user_id": uid})) == []
    assert (
        ok(
            api_b.post(
                "/v1/hmg/recall", json={"query": "发布窗口", "user_id": uid, "repository": "*"}
            )
        )["atoms"]
        == []
    )
    # ... and A still has everything, untouched.
    assert ok(api.get(f"/v1/memories/{fact}"))["status"] == "active"


def test_the_tenant_is_never_a_request_field(api, uid):
    error(
        api.post("/v1/hmg/memorize", json={"content": "x", "tenant": "tenant-b"}),
        422,
        "invalid_input",
    )
    error(api.get("/v1/hmg/stats", params={"tenant": "tenant-b"}), 422, "invalid_input")


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer mh_not-a-key"}, {"Authorization": "Basic dTpw"}]
)
def test_requests_without_a_known_key_get_401(server, headers):
    http, _ = server
    for method, path in (
        ("POST", "/v1/memories/search"),
        ("GET", "/v1/hmg/stats"),
        ("GET", f"/v1/memories/{MISSING}"),
    ):
        response = http.request(method, path, headers=headers, json={"query": "x", "user_id": "u"})
        error(response, 401, "unauthorized")
        assert response.headers["www-authenticate"] == "Bearer"


def test_a_revoked_key_stops_working_at_once(server, uid):
    http, tenants = server
    key, info = tenants.keys.create("tenant-c")
    assert http.get("/v1/hmg/stats", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    tenants.keys.revoke(info.id)
    assert http.get("/v1/hmg/stats", headers={"Authorization": f"Bearer {key}"}).status_code == 401


def test_key_file_holds_only_hashes_and_is_private(server):
    _, tenants = server
    path = tenants.keys.path
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    assert tenants.a not in text and tenants.b not in text
    assert {k["tenant"] for k in json.loads(text)["keys"]} >= {"tenant-a", "tenant-b"}


# -- limits and bad input -------------------------------------------------------------


def test_oversize_body_is_413_by_length_and_by_count(api, uid):
    big = json.dumps(
        {"content": "x" * 70_000, "user_id": uid}
    ).encode()  # the module's app allows 64 KiB
    error(
        api.post("/v1/memories/", content=big, headers={"content-type": "application/json"}),
        413,
        "payload_too_large",
    )

    def chunks():  # no Content-Length: counted as it streams
        yield from (big[i : i + 8192] for i in range(0, len(big), 8192))

    error(
        api.post("/v1/memories/", content=chunks(), headers={"content-type": "application/json"}),
        413,
        "payload_too_large",
    )
    assert ok(api.get("/v1/memories/", params={"user_id": uid})) == []  # nothing was written


BAD_REQUESTS = [
    ("post", "/v1/memories/", {"user_id": "u"}, 422),  # neither content nor messages
    (
        "post",
        "/v1/memories/",
        {"content": "a", "messages": [{"role": "user", "content": "b"}], "user_id": "u"},
        422,
    ),
    ("post", "/v1/memories/", {"content": "a"}, 422),  # no user_id
    (
        "post",
        "/v1/memories/",
        {"content": "   ", "user_id": "u"},
        400,
    ),  # blank, caught by the engine
    (
        "post",
        "/v1/memories/",
        {"messages": [{"role": "robot", "content": "b"}], "user_id": "u"},
        422,
    ),
    (
        "post",
        "/v1/memories/",
        {"messages": [{"role": "system", "content": "b"}], "user_id": "u"},
        400,
    ),
    (
        "post",
        "/v1/memories/",
        {"content": "a", "user_id": "u", "metadata": {"x": float("nan")}},
        422,
    ),
    ("post", "/v1/memories/", {"content": "a", "user_id": "u", "metadata": {"x": 2**60}}, 422),
    ("post", "/v1/memories/search", {"query": "", "user_id": "u"}, 422),
    ("post", "/v1/memories/search", {"query": "q", "user_id": "u", "limit": 201}, 422),
    ("post", "/v1/memories/search", {"query": "q", "user_id": "u", "filters": {"a": 1.5}}, 422),
    (
        "post",
        "/v1/memories/search",
        {"query": "q", "user_id": "u", "filters": {"bad key": "v"}},
        422,
    ),
    ("post", "/v1/hmg/memorize", {"content": "a", "epistemic": "certain"}, 422),
    # NUL in text is refused, as in ids and metadata keys
    ("post", "/v1/memories/", {"content": "a\x00b", "user_id": "u"}, 400),
    (
        "post",
        "/v1/memories/",
        {"messages": [{"role": "user", "content": "a\x00b"}], "user_id": "u"},
        400,
    ),
    ("post", "/v1/hmg/memorize", {"content": "a\x00b"}, 400),
    ("post", "/v1/hmg/correct", {"target_atom": "nope", "action": "negate", "reason": "r"}, 400),
    ("post", "/v1/hmg/correct", {"target_atom": MISSING, "action": "explode", "reason": "r"}, 422),
    ("post", "/v1/hmg/correct", {"target_atom": MISSING, "action": "negate", "reason": "r"}, 404),
    ("post", "/v1/hmg/govern", {"target_atom": MISSING, "action": "seal", "reason": ""}, 422),
    ("get", "/v1/memories/not-an-id", None, 400),
    ("get", "/v1/memories/", None, 422),  # user_id is required
    ("get", f"/v1/hmg/history/{MISSING}", None, 404),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), BAD_REQUESTS)
def test_bad_input_is_a_4xx_with_the_error_body(api, method, path, body, status):
    kwargs = {"json": body} if body is not None else {}
    if body is not None and any(
        isinstance(v, float) for v in (body.get("metadata") or {}).values()
    ):
        kwargs = {
            "content": json.dumps(body).encode(),
            "headers": {"content-type": "application/json"},
        }
    response = getattr(api, method)(path, **kwargs)
    code = {400: "invalid_input", 422: "invalid_input", 404: "not_found"}[status]
    assert error(response, status, code)


def test_malformed_json_and_wrong_types_are_422(api):
    headers = {"content-type": "application/json"}
    error(api.post("/v1/hmg/recall", content=b"{not json", headers=headers), 422, "invalid_input")
    error(api.post("/v1/hmg/recall", content=b"[1, 2]", headers=headers), 422, "invalid_input")
    error(
        api.post("/v1/hmg/recall", content=b'{"query": "\\ud800"}', headers=headers),
        422,
        "invalid_input",
    )


def test_an_invalid_transition_is_409(api, uid):
    atom = ok(api.post("/v1/hmg/memorize", json={"content": "周会改到周三", "user_id": uid}))[
        "atom_id"
    ]
    ok(
        api.post(
            "/v1/hmg/correct",
            json={"target_atom": atom, "action": "negate", "reason": "错了", "user_id": uid},
        )
    )
    message = error(
        api.post(
            "/v1/hmg/correct",
            json={"target_atom": atom, "action": "confirm_actual", "reason": "r", "user_id": uid},
        ),
        409,
        "invalid_transition",
    )
    assert "replace" in message  # it says what to do instead


@pytest.mark.parametrize("call", ["correct", "update", "delete"])
def test_changing_a_tombstoned_memory_is_a_4xx(server, uid, call):
    http, tenants = server
    http = TestClient(http.app, raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {tenants.a}"}
    atom = http.post(
        "/v1/hmg/memorize", json={"content": f"临时口令 {uid}", "user_id": uid}, headers=headers
    ).json()
    atom_id = atom["atom_id"]
    http.post(
        "/v1/hmg/govern",
        json={"target_atom": atom_id, "action": "tombstone", "reason": "r"},
        headers=headers,
    )
    response = {
        "correct": lambda: http.post(
            "/v1/hmg/correct",
            json={"target_atom": atom_id, "action": "negate", "reason": "r"},
            headers=headers,
        ),
        "update": lambda: http.put(
            f"/v1/memories/{atom_id}", json={"content": "新的"}, headers=headers
        ),
        "delete": lambda: http.delete(f"/v1/memories/{atom_id}", headers=headers),
    }[call]()
    assert 400 <= response.status_code < 500, response.text


def test_sealing_a_raw_turn_seals_what_was_extracted_from_it(api, uid):
    written = ok(
        api.post(
            "/v1/memories/",
            json={
                "content": "保险柜暗号是 kiwi-7741。我把 kiwi-7741 写在了书房的便签上。",
                "user_id": uid,
            },
        )
    )
    extracted = [d["memory_id"] for d in written["decisions"]]
    sealed = ok(
        api.post(
            "/v1/hmg/govern",
            json={
                "target_atom": written["memory_id"],
                "action": "seal",
                "reason": "含保险柜暗号",
                "user_id": uid,
            },
        )
    )
    assert sealed["cascaded"] == extracted and len(extracted) == 2
    assert ok(api.get("/v1/memories/", params={"user_id": uid})) == []
    item = ok(api.get(f"/v1/memories/{extracted[0]}", params={"user_id": uid}))
    assert item["content"] == "[governed payload hidden: sealed]"


def test_unknown_routes_and_methods_use_the_error_body(api):
    error(api.get("/v1/nothing-here"), 404, "not_found")
    error(api.patch(f"/v1/memories/{MISSING}", json={}), 405, "method_not_allowed")


def test_head_answers_every_get_route_without_a_body(api, uid):
    routes = [("/health", {}), ("/v1/memories/", {"user_id": uid}), (f"/v1/memories/{MISSING}", {})]
    for path, params in routes:
        got, head = api.get(path, params=params), api.head(path, params=params)
        assert (head.status_code, head.content) == (got.status_code, b""), path
        assert head.headers["content-length"] == got.headers["content-length"]
    assert api.head("/v1/hmg/stats", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert api.head("/v1/hmg/recall").status_code == 405  # a POST route


@pytest.mark.parametrize("parts", [[{"text": 5}], [{"type": "text", "text": ["a"]}], [7]])
def test_content_parts_whose_text_is_not_text_are_422(api, uid, parts):
    body = {"messages": [{"role": "user", "content": parts}], "user_id": uid}
    error(api.post("/v1/memories/", json=body), 422, "invalid_input")
    assert ok(api.get("/v1/memories/", params={"user_id": uid})) == []
