"""The memory inspector over HTTP: sign-in, tenant isolation, escaping, CSRF, actions, languages.

The same pages driven by a real browser are in ``tests/e2e/test_inspector_browser.py``.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from memhub.engine.records import HIDDEN


def signed_in(http: TestClient, key: str) -> TestClient:
    """A browser of its own (own cookies) signed in with ``key``."""
    browser = TestClient(http.app, follow_redirects=False)
    response = browser.post("/ui/login", data={"key": key})
    assert response.status_code == 303 and "memhub_ui" in response.cookies
    return browser


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


@pytest.fixture
def alice(server, uid):
    """Tenant A's inspector, with two memories of user ``uid`` written through the REST API."""
    http, tenants = server
    headers = {"Authorization": f"Bearer {tenants.a}"}
    ids = {}
    for name, text in (
        ("db", f"we use PostgreSQL 16 for billing at {uid}"),
        ("js", "<script>alert(1)</script>"),
    ):
        r = http.post("/v1/hmg/memorize", json={"content": text, "user_id": uid}, headers=headers)
        ids[name] = r.json()["atom_id"]
    return signed_in(http, tenants.a), ids, uid


def test_without_a_session_every_page_sends_to_sign_in(server) -> None:
    http, _ = server
    browser = TestClient(http.app, follow_redirects=False)
    for path in ("/ui/", "/ui/memories", "/ui/search?q=x", "/ui/coding", "/ui/memory/01ABC"):
        response = browser.get(path)
        assert response.status_code == 303 and response.headers["location"] == "/ui/login"


def test_a_wrong_key_is_refused(server) -> None:
    http, _ = server
    browser = TestClient(http.app, follow_redirects=False)
    response = browser.post("/ui/login", data={"key": "mh_not-a-key"})
    assert response.status_code == 401 and "Unknown API key." in response.text
    assert "memhub_ui" not in response.cookies
    assert browser.get("/ui/").status_code == 303


def test_a_sign_in_from_another_site_is_refused(server) -> None:
    http, tenants = server
    browser = TestClient(http.app, follow_redirects=False)
    response = browser.post(
        "/ui/login", data={"key": tenants.a}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 401


def test_a_key_sees_only_its_tenant(server, alice) -> None:
    http, tenants = server
    browser, ids, uid = alice
    other = signed_in(http, tenants.b)
    page = other.get("/ui/memories").text
    assert f"billing at {uid}" not in page and ids["db"] not in page
    assert other.get(f"/ui/memory/{ids['db']}").status_code == 404
    assert f"billing at {uid}" in browser.get("/ui/memories").text
    assert ">tenant-a<" in browser.get("/ui/").text


def test_memory_text_is_escaped(alice) -> None:
    browser, ids, uid = alice
    for path in (f"/ui/memories?user_id={uid}", f"/ui/memory/{ids['js']}", "/ui/"):
        page = browser.get(path).text
        assert "<script>alert(1)</script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "script-src 'self'" in browser.get("/ui/").headers["content-security-policy"]


def test_actions_need_the_csrf_token_and_a_confirmation(alice) -> None:
    browser, ids, uid = alice
    form = {
        "action": "replace",
        "atom_id": ids["db"],
        "reason": "moved",
        "text": f"MySQL 8 at {uid}",
    }
    assert browser.post("/ui/actions/apply", data=form).status_code == 403
    assert browser.post("/ui/actions/apply", data={**form, "csrf": "forged"}).status_code == 403
    csrf = csrf_of(browser.get(f"/ui/memory/{ids['db']}").text)
    review = browser.post("/ui/actions/review", data={**form, "csrf": csrf})
    assert review.status_code == 200 and 'id="confirm-button"' in review.text
    listing = browser.get(f"/ui/memories?user_id={uid}&status=active").text
    assert f"MySQL 8 at {uid}" not in listing  # reviewing changes nothing

    done = browser.post("/ui/actions/apply", data={**form, "csrf": csrf})
    assert done.status_code == 200 and "superseded" in done.text
    new_id = re.search(r'href="/ui/memory/([0-9A-Z]+)" id="follow"', done.text).group(1)
    assert new_id != ids["db"]
    history = browser.get(f"/ui/memory/{new_id}").text
    chain = history[history.index('id="chain"') :]
    assert chain.index("MySQL 8") < chain.index("PostgreSQL 16")  # the new version on top


def test_an_action_or_sign_out_from_another_site_is_refused_even_with_the_token(alice) -> None:
    browser, ids, uid = alice
    csrf = csrf_of(browser.get(f"/ui/memory/{ids['db']}").text)
    form = {"action": "negate", "atom_id": ids["db"], "reason": "x", "csrf": csrf}
    evil = {"Origin": "https://evil.example"}
    for path in ("/ui/actions/review", "/ui/actions/apply"):
        assert browser.post(path, data=form, headers=evil).status_code == 403
    assert browser.post("/ui/logout", data={"csrf": csrf}, headers=evil).status_code == 403
    assert browser.get("/ui/").status_code == 200  # still signed in
    history = browser.get(f"/ui/memory/{ids['db']}").text
    assert "negated" not in history  # nothing applied
    same = {"Origin": "http://testserver"}
    assert browser.post("/ui/actions/apply", data=form, headers=same).status_code == 200
    assert "negated" in browser.get(f"/ui/memory/{ids['db']}").text


def test_paging_links_keep_a_filter_value_with_url_characters_whole(server, uid) -> None:
    http, tenants = server
    headers = {"Authorization": f"Bearer {tenants.a}"}
    user = f"{uid}&status=negated#x y"
    for i in range(3):
        r = http.post(
            "/v1/hmg/memorize",
            json={"content": f"fact number {i} about topic {i * 7}", "user_id": user},
            headers=headers,
        )
        assert r.status_code == 200, r.text
    browser = signed_in(http, tenants.a)
    first = browser.get("/ui/memories", params={"user_id": user, "limit": 2}).text
    nxt = re.search(r'id="next-page" href="([^"]+)"', first).group(1).replace("&amp;", "&")
    second = browser.get(nxt + "&limit=2").text
    seen = re.findall(r'data-id="([0-9A-Z]+)"', first) + re.findall(
        r'data-id="([0-9A-Z]+)"', second
    )
    assert len(seen) == 3 == len(set(seen))


def test_a_sealed_memory_shows_only_the_placeholder(alice) -> None:
    browser, ids, uid = alice
    csrf = csrf_of(browser.get(f"/ui/memory/{ids['db']}").text)
    form = {"action": "seal", "atom_id": ids["db"], "reason": "not ours", "csrf": csrf}
    assert browser.post("/ui/actions/apply", data=form).status_code == 200
    placeholder = HIDDEN.format(state="sealed")
    for path in (
        f"/ui/memories?user_id={uid}",
        f"/ui/memory/{ids['db']}",
        "/ui/",
        f"/ui/search?q=PostgreSQL+billing&user_id={uid}",
    ):
        page = browser.get(path).text
        assert f"billing at {uid}" not in page, path
    assert placeholder in browser.get(f"/ui/memory/{ids['db']}").text


def test_an_action_error_is_shown_and_changes_nothing(alice) -> None:
    browser, ids, _ = alice
    csrf = csrf_of(browser.get(f"/ui/memory/{ids['db']}").text)
    form = {"action": "replace", "atom_id": ids["db"], "reason": "", "text": "x", "csrf": csrf}
    done = browser.post("/ui/actions/apply", data=form)
    assert done.status_code == 400 and "reason is required" in done.text
    assert "superseded" not in browser.get(f"/ui/memory/{ids['db']}").text


def test_pages_follow_the_browser_language_and_the_switch(alice) -> None:
    browser, _, _ = alice
    assert ">Memories<" in browser.get("/ui/memories", headers={"Accept-Language": "en-US"}).text
    assert (
        ">记忆<" in browser.get("/ui/memories", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    )
    switched = browser.get("/ui/lang/zh?next=/ui/memories")
    assert switched.status_code == 303 and switched.headers["location"] == "/ui/memories"
    assert ">记忆<" in browser.get("/ui/memories", headers={"Accept-Language": "en"}).text
    assert browser.get("/ui/lang/en?next=https://evil.example/").headers["location"] == "/ui/"


def test_memories_page_through_with_a_cursor(server, uid) -> None:
    http, tenants = server
    headers = {"Authorization": f"Bearer {tenants.a}"}
    for i in range(5):
        http.post(
            "/v1/hmg/memorize",
            json={"content": f"fact number {i} about topic {i * 7}", "user_id": uid},
            headers=headers,
        )
    browser = signed_in(http, tenants.a)
    seen = []
    url = f"/ui/memories?user_id={uid}&limit=2"
    while url:
        page = browser.get(url).text
        seen += re.findall(r'data-id="([0-9A-Z]+)"', page)
        nxt = re.search(r'id="next-page" href="([^"]+)"', page)
        url = nxt.group(1).replace("&amp;", "&") + "&limit=2" if nxt else None
    assert len(seen) == 5 == len(set(seen))


@pytest.mark.enable_socket
@pytest.mark.network
def test_the_hub_link_with_its_token_signs_in(hub) -> None:
    import httpx

    with httpx.Client(base_url=hub.url, follow_redirects=False) as browser:
        refused = browser.get("/ui/?token=wrong")
        assert refused.status_code == 303 and refused.headers["location"] == "/ui/login"
        response = browser.get(f"/ui/?token={hub.token}")
        assert response.status_code == 303 and response.headers["location"] == "/ui/"
        assert "Overview" in browser.get("/ui/").text


def test_only_an_operator_purges_from_the_inspector(server, alice) -> None:
    browser, ids, _ = alice
    csrf = csrf_of(browser.get(f"/ui/memory/{ids['db']}").text)
    refused = browser.post("/ui/actions/apply", data={"action": "purge", "csrf": csrf})
    assert refused.status_code == 400 and "operator" in refused.text
    http, tenants = server
    operator_key, _ = tenants.keys.create("ops", admin=True)
    operator = signed_in(http, operator_key)
    csrf = csrf_of(operator.get("/ui/").text)
    assert (
        operator.post("/ui/actions/apply", data={"action": "purge", "csrf": csrf}).status_code
        == 200
    )


def test_a_history_shows_the_raw_turns_a_memory_came_from(server, uid) -> None:
    http, tenants = server
    said = f"I live in Lisbon and my name is {uid}"
    body = {"messages": [{"role": "user", "content": said}], "user_id": uid}
    written = http.post(
        "/v1/memories/", json=body, headers={"Authorization": f"Bearer {tenants.a}"}
    )
    extracted = [d["memory_id"] for d in written.json()["decisions"] if d["memory_id"]]
    assert extracted, written.json()
    page = signed_in(http, tenants.a).get(f"/ui/memory/{extracted[0]}").text
    assert said in page[page.index('id="raw"') :]


def test_the_search_page_reads_as_of_a_date(server, uid) -> None:
    http, tenants = server
    headers = {"Authorization": f"Bearer {tenants.a}"}
    for text, when in (
        ("I live in Toronto", "2026-01-10T09:00:00Z"),
        ("I moved to Montreal last month", "2026-09-15T09:00:00Z"),
    ):
        body = {"content": text, "user_id": uid, "occurred_at": when}
        assert http.post("/v1/memories/", json=body, headers=headers).status_code == 200
    browser = signed_in(http, tenants.a)
    july = browser.get(f"/ui/search?q=where+do+I+live&user_id={uid}&as_of=2026-07-15").text
    assert 'name="as_of" value="2026-07-15"' in july
    given = july[july.index('id="given"') :]
    assert "Toronto" in given and "Montreal" not in given
    now = browser.get(f"/ui/search?q=where+do+I+live&user_id={uid}").text
    assert "Montreal last month [2026-08]" in now[now.index('id="given"') :]


def test_a_memorys_page_shows_when_each_version_held(server, uid) -> None:
    http, tenants = server
    headers = {"Authorization": f"Bearer {tenants.a}"}
    for text, when in (
        ("I live in Toronto", "2026-01-10T09:00:00Z"),
        ("I moved to Montreal last month", "2026-09-15T09:00:00Z"),
    ):
        body = {"content": text, "user_id": uid, "occurred_at": when}
        written = http.post("/v1/memories/", json=body, headers=headers).json()
    page = signed_in(http, tenants.a).get(f"/ui/memory/{written['memory_ids'][0]}").text
    assert re.search(r'id="valid">\s*valid from 2026-08-01', page)
    chain = page[page.index('id="chain"') :]
    assert "valid from 2026-01-10 to 2026-08-01" in chain
