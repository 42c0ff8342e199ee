"""Reads as of a date over REST: search, search-conversation, list, get and recall."""

from __future__ import annotations


def test_every_read_takes_as_of(api, uid) -> None:
    for text, when in (
        ("I live in Toronto", "2026-01-10T09:00:00Z"),
        ("I moved to Montreal last month", "2026-09-15T09:00:00Z"),
    ):
        body = {"content": text, "user_id": uid, "occurred_at": when}
        assert api.post("/v1/memories/", json=body).status_code == 200

    def homes(path: str, **body) -> list[str]:
        found = api.post(path, json={"query": "where do I live", "user_id": uid, **body}).json()
        return [m["content"] for group in found["memories"].values() for m in group or []]

    assert homes("/v1/memories/search", as_of="2026-07-15") == ["I live in Toronto"]
    [now] = homes("/v1/memories/search")
    assert now == "I moved to Montreal last month"
    listed = api.get("/v1/memories/", params={"user_id": uid, "as_of": "2026-07-15"}).json()
    assert [m["content"] for m in listed] == ["I live in Toronto"]
    assert listed[0]["valid_to"].startswith("2026-08-01")
    current = api.get("/v1/memories/", params={"user_id": uid}).json()[0]
    assert (current["valid_from"][:10], current["valid_precision"]) == ("2026-08-01", "month")
    then = api.get(f"/v1/memories/{current['id']}", params={"as_of": "2026-07-15"}).json()
    assert then["content"] == "I live in Toronto"
    turns = api.post(
        "/v1/memories/search-conversation",
        json={"query": "Montreal", "user_id": uid, "as_of": "2026-07-15"},
    ).json()["turns"]
    assert "I moved to Montreal last month" not in [t["content"] for t in turns]
    recalled = api.post(
        "/v1/hmg/recall",
        json={"query": "where I live", "user_id": uid, "repository": "*", "as_of": "2026-07-15"},
    ).json()
    assert [a["content"] for a in recalled["atoms"]] == ["I live in Toronto"]
    bad = api.post(
        "/v1/memories/search", json={"query": "x", "user_id": uid, "as_of": "last tuesday"}
    )
    assert bad.status_code in (400, 422) and "as_of" in bad.text
