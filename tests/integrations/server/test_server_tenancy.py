"""A tenant of a shared server can neither run store-wide maintenance nor count other
tenants' writes."""

from __future__ import annotations


def test_purge_needs_an_operator_key(server, api):
    http, tenants = server
    refused = api.post("/v1/hmg/purge")
    assert refused.status_code == 403
    assert "DELETE /v1/users/" in refused.text  # the tenant's own erasure is named
    operator, _ = tenants.keys.create("ops", admin=True)
    purged = http.post("/v1/hmg/purge", headers={"Authorization": f"Bearer {operator}"})
    assert purged.json() == {"purged": True}
    assert tenants.keys.is_admin(operator) and not tenants.keys.is_admin(tenants.a)


def test_snapshot_version_counts_only_the_tenants_own_writes(api, api_b, uid):
    a, b = api, api_b
    before_a = a.get("/v1/hmg/stats").json()["snapshot_version"]
    before_b = b.get("/v1/hmg/stats").json()["snapshot_version"]
    # three unrelated facts: near-duplicates would be no_ops, which write nothing
    for fact in ("logs are kept for 30 days", "deploys stop on Fridays", "the CI runs on ARM"):
        assert a.post("/v1/hmg/memorize", json={"content": f"{fact} {uid}"}).status_code == 200
    assert a.get("/v1/hmg/stats").json()["snapshot_version"] == before_a + 3
    assert b.get("/v1/hmg/stats").json()["snapshot_version"] == before_b
    assert (
        b.post(
            "/v1/memories/", json={"user_id": uid, "content": "tenant b lives in Lyon"}
        ).status_code
        == 200
    )
    assert b.get("/v1/hmg/stats").json()["snapshot_version"] == before_b + 1
