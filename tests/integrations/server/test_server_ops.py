"""What an operator runs the service with: metrics, per-tenant limits, request logs, readiness."""

from __future__ import annotations

import asyncio
import io
import json
import time

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from memhub import Settings
from memhub_server import logs
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore
from memhub_server.limits import Limit, LimitExceeded, TenantLimits

SECRET = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
PRIVATE = "我的银行卡密码是 735194，别告诉别人"


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def keys(fresh_store) -> KeyStore:
    return KeyStore(fresh_store / KEYS_FILE)


@pytest.fixture
def app_with(fresh_store, keys, make_service):
    """``app_with(**settings)``: an app over a fresh store with those settings, as TestClient."""
    opened: list[TestClient] = []

    def build(metrics: bool = False, **settings) -> TestClient:
        service = make_service(fresh_store)
        service.settings = Settings(storage_dir=str(fresh_store), **settings)
        http = TestClient(create_app(service=service, auth=keys, metrics=metrics))
        opened.append(http.__enter__())
        return http

    yield build
    for http in opened:
        http.__exit__(None, None, None)


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    return [
        (s.name, s.labels, s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


# -- metrics -----------------------------------------------------------------------------


def test_metrics_after_a_scripted_session_name_every_series_with_its_labels(app_with, keys, uid):
    http = app_with(metrics=True)
    key, _ = keys.create("acme")
    ops, _ = keys.create("ops", admin=True)
    said = {"content": "我们的主数据库是 PostgreSQL 16", "user_id": uid}
    assert http.post("/v1/memories/", json=said, headers=_auth(key)).status_code == 200
    again = http.post("/v1/memories/", json=said, headers=_auth(key)).json()  # a duplicate
    assert (
        http.post(
            "/v1/memories/search", json={"query": "数据库", "user_id": uid}, headers=_auth(key)
        ).status_code
        == 200
    )
    assert (
        http.post(
            "/v1/hmg/recall", json={"query": "数据库", "user_id": uid}, headers=_auth(key)
        ).status_code
        == 200
    )
    assert (
        http.get("/v1/memories/01ARZ3NDEKTSV4RRFFQ69G5FAV", headers=_auth(key)).status_code == 404
    )

    assert http.get("/metrics").status_code == 401
    assert http.get("/metrics", headers=_auth(key)).status_code == 403  # a tenant's key
    scraped = http.get("/metrics", headers=_auth(ops))
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain; version=")
    samples = _samples(scraped.text)

    def value(name: str, **labels: str) -> float:
        found = [v for n, ls, v in samples if n == name and labels.items() <= ls.items()]
        assert found, (name, labels)
        return sum(found)

    add = {"route": "/v1/memories/", "method": "POST"}
    assert value("memhub_requests_total", **add, status="200", tenant="acme") == 2
    assert value("memhub_requests_total", route="/v1/memories/{memory_id}", status="404") == 1
    for route in ("/v1/memories/", "/v1/memories/search", "/v1/hmg/recall"):
        assert value("memhub_request_duration_seconds_count", route=route) >= 1
        assert value("memhub_request_duration_seconds_bucket", route=route, le="+Inf") >= 1
    assert value("memhub_embed_duration_seconds_count", kind="query") >= 2
    assert value("memhub_embed_duration_seconds_count", kind="passages") >= 1
    # every decision of the judge, the duplicate's too, which no stored event records
    actions = [d["action"] for d in again["decisions"]]
    assert actions and all(a in ("NOOP", "RAW_ONLY") for a in actions)
    assert value("memhub_write_decisions_total", tenant="acme", action="ADD") >= 1
    assert value("memhub_write_decisions_total", tenant="acme", action=actions[0]) >= 1
    assert value("memhub_owner_loop_tasks") >= 0 and value("memhub_embed_queue_depth") == 0
    stats = http.get("/v1/hmg/stats", headers=_auth(key)).json()
    assert value("memhub_memories", tenant="acme") == stats["atoms"] > 0
    assert value("memhub_memories", tenant="ops") == 0
    assert uid not in scraped.text and "PostgreSQL" not in scraped.text  # no content, no ids


def test_the_hub_serves_no_metrics_by_default(app_with, keys):
    http = app_with()
    ops, _ = keys.create("ops", admin=True)
    assert http.get("/metrics", headers=_auth(ops)).status_code == 404


# -- limits ------------------------------------------------------------------------------


def test_over_its_rate_a_tenant_gets_429_with_retry_after_and_others_go_on(app_with, keys, uid):
    http = app_with(rate_limit="3/minute")
    a, _ = keys.create("acme")
    b, _ = keys.create("other")
    body = {"content": "我们每周四下午发布", "user_id": uid}
    for _ in range(3):
        assert http.get("/v1/hmg/stats", headers=_auth(a)).status_code == 200
    refused = http.post("/v1/memories/", json=body, headers=_auth(a))
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert http.get("/v1/hmg/stats", headers=_auth(b)).status_code == 200  # not the others
    # nothing of the refused add was written
    assert http.get("/v1/memories/", params={"user_id": uid}, headers=_auth(b)).json() == []
    assert http.get("/v1/hmg/stats", headers=_auth(b)).json()["atoms"] == 0


def test_a_key_of_its_own_rate_is_held_to_it(app_with, keys):
    http = app_with()  # no limit in the settings
    tight, _ = keys.create("acme", limits=Limit(rate="2/minute"))
    free, _ = keys.create("acme")
    assert [http.get("/v1/hmg/stats", headers=_auth(tight)).status_code for _ in range(3)] == [
        200,
        200,
        429,
    ]
    assert all(http.get("/v1/hmg/stats", headers=_auth(free)).status_code == 200 for _ in range(4))


def test_at_its_quota_a_tenant_may_read_and_delete_but_not_write(app_with, keys, uid):
    http = app_with(memory_quota=3)
    key, _ = keys.create("acme")
    facts = ["我住在上海", "我的猫叫年糕", "我每天跑步五公里", "我对花生过敏"]
    ids = []
    for fact in facts[:2]:
        r = http.post(
            "/v1/hmg/memorize", json={"content": fact, "user_id": uid}, headers=_auth(key)
        )
        assert r.status_code == 200, r.text
        ids.append(r.json()["atom_id"])
    held = http.get("/v1/hmg/stats", headers=_auth(key)).json()["atoms"]
    assert held == 2
    assert (
        http.post(
            "/v1/hmg/memorize", json={"content": facts[2], "user_id": uid}, headers=_auth(key)
        ).status_code
        == 200
    )
    refused = http.post(
        "/v1/hmg/memorize", json={"content": facts[3], "user_id": uid}, headers=_auth(key)
    )
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "quota_exceeded"
    assert "Retry-After" not in refused.headers  # waiting does not free a quota
    assert http.get("/v1/hmg/stats", headers=_auth(key)).json()["atoms"] == 3
    recalled = http.post(
        "/v1/hmg/recall", json={"query": "花生", "user_id": uid}, headers=_auth(key)
    ).json()
    assert not any("花生" in a["content"] for a in recalled["atoms"])
    forgotten = http.delete(f"/v1/users/{uid}", headers=_auth(key))  # making room is allowed
    assert forgotten.status_code == 200 and forgotten.json()["tombstoned"] == 3


async def test_a_tenant_at_its_write_limit_is_refused_until_a_write_ends():
    limits = TenantLimits(Limit(writes=1))
    async with limits.admit("acme", "POST", "/v1/memories/"):
        with pytest.raises(LimitExceeded) as refused:
            async with limits.admit("acme", "PUT", "/v1/memories/{memory_id}"):
                pass
        assert refused.value.code == "too_many_writes"
        assert refused.value.headers == {"Retry-After": "1"}
        async with limits.admit("acme", "POST", "/v1/memories/search"):  # a read: no slot
            pass
        async with limits.admit("other", "POST", "/v1/memories/"):  # another tenant
            assert limits.writing("other") == 1
    assert limits.writing("acme") == 0
    async with limits.admit("acme", "POST", "/v1/memories/"):
        pass


@pytest.mark.parametrize(
    ("limits", "problem"),
    [
        ({"rate": "lots"}, "rate limit"),
        ({"writes": 0}, "writes"),
        ({"quota": "9"}, "quota"),
        ({"burst": 3}, "limits"),
    ],
)
def test_a_key_file_with_bad_limits_is_refused_with_the_reason(keys, limits, problem):
    keys.create("acme")
    data = json.loads(keys.path.read_text())
    data["keys"][0]["limits"] = limits
    keys.path.write_text(json.dumps(data))
    from memhub_server.auth import KeyFileError

    with pytest.raises(KeyFileError, match=problem):
        keys.check()


def test_bad_rate_setting_fails_at_start():
    from memhub.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="20/second"):
        TenantLimits(Limit(rate="twenty a second"))


# -- logs --------------------------------------------------------------------------------


@pytest.fixture
def json_log():
    stream = io.StringIO()
    handler = logs.configure("json", stream)
    yield stream
    logs.unconfigure(handler)


def test_one_json_line_per_request_with_its_id_and_nothing_said(app_with, keys, uid, json_log):
    http = app_with()
    key, _ = keys.create("acme")
    said = f"{PRIVATE}. 部署用的 API key 是 {SECRET}"
    r = http.post(
        "/v1/memories/",
        json={"content": said, "user_id": uid},
        headers={**_auth(key), "X-Request-ID": "caller-42.a"},
    )
    assert r.status_code == 200 and r.headers["x-request-id"] == "caller-42.a"
    unsafe = http.delete(f"/v1/users/{uid}", headers={**_auth(key), "X-Request-ID": "bad id\x01"})
    made = unsafe.headers["x-request-id"]
    assert made != "bad id\x01" and len(made) == 32
    unknown = http.get("/v1/nowhere/" + SECRET, headers=_auth(key))
    assert unknown.status_code == 404 and unknown.headers["x-request-id"]

    text = json_log.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    access = [line for line in lines if line["logger"] == "memhub_server.access"]
    assert [(a["request_id"], a["route"], a["status"]) for a in access] == [
        ("caller-42.a", "/v1/memories/", 200),
        (made, "/v1/users/{user_id}", 200),
        (unknown.headers["x-request-id"], "unmatched", 404),
    ]
    first = access[0]
    assert first["tenant"] == "acme" and first["method"] == "POST" and first["duration_ms"] > 0
    assert first["level"] == "info" and first["ts"].endswith("+00:00")
    for leaked in (SECRET, "735194", "银行卡", uid, key):
        assert leaked not in text


def test_text_log_format_says_the_same_in_one_line(app_with, keys):
    http = app_with()
    key, _ = keys.create("acme")
    stream = io.StringIO()
    handler = logs.configure("text", stream)
    try:
        r = http.get("/v1/hmg/stats", headers={**_auth(key), "X-Request-ID": "t-1"})
    finally:
        logs.unconfigure(handler)
    assert r.status_code == 200
    (line,) = stream.getvalue().splitlines()
    assert " info [t-1] GET /v1/hmg/stats 200 " in line and line.endswith("tenant=acme")


def test_unknown_log_format_is_refused():
    with pytest.raises(ValueError, match="text or json"):
        logs.configure("xml")  # type: ignore[arg-type]


# -- readiness and draining --------------------------------------------------------------


def test_ready_checks_store_embedder_and_keys(app_with, keys):
    http = app_with()
    keys.create("acme")
    r = http.get("/ready")
    assert r.status_code == 200
    assert r.json() == {
        "ready": True,
        "checks": {"store": True, "keys": True, "accepting": True, "embedder": True},
    }
    keys.path.write_text("{not json")
    broken = http.get("/ready")
    assert broken.status_code == 503 and broken.json()["checks"]["keys"] is False
    assert http.get("/health").status_code == 200  # alive all the same


def test_while_draining_new_requests_get_503_and_change_nothing(app_with, keys, uid):
    from memhub_server.lifecycle import start_draining

    http = app_with()
    key, _ = keys.create("acme")
    start_draining(http.app)
    refused = http.post(
        "/v1/hmg/memorize", json={"content": "我住在上海", "user_id": uid}, headers=_auth(key)
    )
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "shutting_down"
    assert refused.headers["connection"] == "close"
    not_ready = http.get("/ready")
    assert not_ready.status_code == 503 and not_ready.json()["checks"]["accepting"] is False
    assert http.get("/health").status_code == 200
    http.app.state.draining = False
    assert http.get("/v1/hmg/stats", headers=_auth(key)).json()["atoms"] == 0


def test_concurrent_admits_never_exceed_the_write_limit():
    limits = TenantLimits(Limit(writes=2))
    peak = 0
    refused = 0

    async def write() -> None:
        nonlocal peak, refused
        try:
            async with limits.admit("acme", "POST", "/v1/memories/"):
                peak = max(peak, limits.writing("acme"))
                await asyncio.sleep(0.01)
        except LimitExceeded:
            refused += 1

    async def main() -> None:
        await asyncio.gather(*(write() for _ in range(10)))

    asyncio.run(main())
    assert peak == 2 and refused == 8 and limits.writing("acme") == 0


# -- the operator's page -----------------------------------------------------------------


def test_the_overview_shows_the_counters_metrics_expose(app_with, keys, uid):
    import re

    http = app_with(metrics=True)
    key, _ = keys.create("acme")
    ops, _ = keys.create("ops", admin=True)
    said = {"content": "我们的主数据库是 PostgreSQL 16", "user_id": uid}
    for _ in range(2):  # ADD, then the duplicate
        assert http.post("/v1/memories/", json=said, headers=_auth(key)).status_code == 200
    search = {"query": "数据库", "user_id": uid}
    assert http.post("/v1/memories/search", json=search, headers=_auth(key)).status_code == 200

    browser = TestClient(http.app, follow_redirects=False)
    assert browser.post("/ui/login", data={"key": key}).status_code == 303
    page = browser.get("/ui/").text
    scraped = _samples(http.get("/metrics", headers=_auth(ops)).text)
    exposed = {
        labels["action"]: int(v)
        for name, labels, v in scraped
        if name == "memhub_write_decisions_total" and labels["tenant"] == "acme"
    }
    table = re.search(r'id="judge-decisions">(.*?)</table>', page, re.S).group(1)
    shown = dict(re.findall(r"<td>([A-Z_]+)</td><td class=\"num\">(\d+)</td>", table))
    assert {a: int(n) for a, n in shown.items()} == exposed and sum(exposed.values()) >= 2
    latency = re.search(r'id="latency">(.*?)</table>', page, re.S).group(1)
    searches = re.search(r"<td>search</td>\s*<td class=\"num\">(\d+)</td>", latency).group(1)
    route = {"route": "/v1/memories/search", "method": "POST"}
    counted = [
        v
        for n, ls, v in scraped
        if n == "memhub_request_duration_seconds_count" and route.items() <= ls.items()
    ]
    assert int(searches) == int(counted[0]) == 1
    assert re.search(r'id="embed-queue">0</b>', page)


# -- the command line --------------------------------------------------------------------


def test_keys_create_with_limits_and_bad_limits_write_nothing(fresh_store, memhub_main, capsys):
    base = ["--storage-dir", str(fresh_store), "--tenant", "acme", "keys"]
    assert memhub_main([*base, "create", "--rate", "5/second", "--quota", "10"]) == 0
    capsys.readouterr()
    assert memhub_main(["--storage-dir", str(fresh_store), "--json", "keys", "list"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["keys"]
    assert listed["limits"] == {"rate": "5/second", "writes": None, "quota": 10}
    before = (fresh_store / KEYS_FILE).read_text()
    assert memhub_main([*base, "create", "--rate", "lots"]) != 0
    assert memhub_main([*base, "create", "--writes", "0"]) != 0
    assert "rate limit 'lots'" in capsys.readouterr().err
    assert (fresh_store / KEYS_FILE).read_text() == before
    assert memhub_main(["--storage-dir", str(fresh_store), "keys", "list", "--rate", "1/s"]) != 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--graceful-timeout", "0"], "--graceful-timeout must be positive"),
        (["--backup-keep", "0"], "--backup-keep must be 1 or more"),
        (["--backup-every", "often"], "not a duration"),
    ],
)
def test_serve_api_refuses_bad_operations_flags_before_opening(
    fresh_store, memhub_main, capsys, flags, message
):
    assert memhub_main(["--storage-dir", str(fresh_store), "serve-api", *flags]) != 0
    assert message in capsys.readouterr().err


async def test_the_server_backs_up_on_a_schedule_kept_n_deep(fresh_store, make_service, tmp_path):
    from memhub_server.backup import BackupSchedule, backups_in

    service = make_service(fresh_store)
    await service.open()
    reports: list[str] = []
    try:
        await (await service.client("acme")).memorize("我住在上海", user_id="u1")
        schedule = BackupSchedule(service, tmp_path / "b", 0.2, 2, reports.append)
        schedule.start()
        for _ in range(100):
            if len(reports) >= 3:
                break
            await asyncio.sleep(0.1)
        await schedule.stop()
    finally:
        await service.close()
    assert len(reports) >= 3 and all(r.startswith("backup: ") for r in reports)
    assert len(backups_in(tmp_path / "b")) == 2


def test_the_embed_queue_gauge_counts_what_waits_for_e5():
    import threading

    from prometheus_client import CollectorRegistry, Histogram

    from memhub.embed.e5 import E5Embedder
    from memhub_server.metrics import TimedEmbedder

    e5 = E5Embedder()  # the model loads on first use: these jobs never use it
    timed = TimedEmbedder(e5, Histogram("t", "t", ["kind"], registry=CollectorRegistry()))
    release = threading.Event()
    busy = e5._long.submit(release.wait, 10)  # the lane's worker is held by this job
    waiting = [e5._long.submit(lambda: None) for _ in range(3)]
    try:
        deadline = time.monotonic() + 5
        while timed.queued() != 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert timed.queued() == 3
    finally:
        release.set()
    busy.result(timeout=5)
    for job in waiting:
        job.result(timeout=5)
    assert timed.queued() == 0
