"""The memory inspector in a real browser: headless Chromium (Debian's) driven by Playwright.

One server (``serve-api``'s app: API keys, two tenants) over a small store, one browser
for the whole module. Each page is screenshotted to ``build/inspector-screenshots/``.
Skipped only when no Chromium is installed (``.ci/run`` installs it with apt-get).
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memhub import Settings
from memhub.engine.records import HIDDEN
from memhub.testing import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "inspector-screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - the dev group installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.browser,
    pytest.mark.enable_socket,
    pytest.mark.network,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (uv sync)"),
]

ATLAS = "We deploy the Atlas service on Fridays"
VAULT = "The staging vault phrase is tangerine-42"
SCRIPT = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> note'


class Server:
    """``serve-api``'s app on a loopback port, run by uvicorn in a thread."""

    def __init__(self, storage_dir: Path) -> None:
        import uvicorn

        from memhub_server.app import create_app
        from memhub_server.auth import KEYS_FILE, KeyStore
        from memhub_server.hub import listen
        from memhub_server.service import MemoryService

        keys = KeyStore(storage_dir / KEYS_FILE)
        self.key, _ = keys.create("acme")
        self.other_key, _ = keys.create("globex")
        service = MemoryService(Settings(storage_dir=str(storage_dir)), embed=HashEmbedder())
        self.sock = listen("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        app = create_app(service=service, auth=keys)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.sock]))

    def __enter__(self) -> Server:
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            threading.Event().wait(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def seed(server: Server) -> dict[str, str]:
    """A small store: facts, a conversation, a handoff and a coding session for ``alice``."""
    ids: dict[str, str] = {}
    with httpx.Client(base_url=server.url, timeout=60) as http:
        a = {"Authorization": f"Bearer {server.key}"}
        for name, text in (("atlas", ATLAS), ("vault", VAULT), ("script", SCRIPT)):
            body = {"content": text, "user_id": "alice", "repository": "acme/api", "branch": "main"}
            ids[name] = http.post("/v1/hmg/memorize", json=body, headers=a).json()["atom_id"]
        chat = [
            {"role": "user", "content": "I live in Berlin and I work at SAP as a data engineer."},
            {"role": "assistant", "content": "Noted: Berlin, SAP, data engineering."},
        ]
        http.post(
            "/v1/memories/",
            json={"messages": chat, "user_id": "alice", "session_id": "s-1"},
            headers=a,
        )
        http.post(
            "/v1/memories/",
            json={"content": "My favourite editor is Helix", "user_id": "bob"},
            headers=a,
        )
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "app/db.py"}'},
        }
        coding = [
            {"role": "user", "content": "app/db.py 高并发写入偶发 database is locked"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "conn = sqlite3.connect(db_path)"},
            {
                "role": "assistant",
                "content": "改为 WAL 模式并设置 busy_timeout=5000 后不再出现 database is locked",
            },
        ]
        body = {
            "messages": coding,
            "user_id": "alice",
            "workspace_id": "acme/api",
            "branch": "main",
        }
        ids["coding"] = http.post("/v1/memories/", json=body, headers=a).json()["procedure_ids"]
        handoff = {
            "summary": "Next: finish the Atlas deploy checklist; CI is green.",
            "repository": "acme/api",
            "branch": "main",
        }
        http.post("/v1/hmg/handoff", json=handoff, headers=a)
        b = {"Authorization": f"Bearer {server.other_key}"}
        http.post(
            "/v1/hmg/memorize",
            json={"content": "Globex secret roadmap item", "user_id": "zed"},
            headers=b,
        )
    return ids


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[Server, dict[str, str]]]:
    with Server(tmp_path_factory.mktemp("inspector") / "store") as server:
        yield server, seed(server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page(browser, site) -> Iterator[Page]:
    """One tab for the module, signed in as tenant ``acme`` by ``test_sign_in``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_wrong_key_is_refused(page, site) -> None:
    server, _ = site
    page.goto(f"{server.url}/ui/")
    expect(page).to_have_url(f"{server.url}/ui/login")
    page.fill("input[name=key]", "mh_wrong")
    page.click("button[type=submit]")
    expect(page.locator("#login-error")).to_have_text("Unknown API key.")
    shot(page, "login-refused")
    page.goto(f"{server.url}/ui/memories")
    expect(page).to_have_url(f"{server.url}/ui/login")


def test_sign_in_and_overview(page, site) -> None:
    server, _ = site
    page.fill("input[name=key]", server.key)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{server.url}/ui/")
    expect(page.locator("header .tenant b")).to_have_text("acme")
    expect(page.locator("#counts-user_id")).to_contain_text("alice")
    expect(page.locator("#counts-repository")).to_contain_text("acme/api")
    assert page.locator("#decisions rect").count() >= 1
    assert "Globex" not in page.content()
    shot(page, "overview")


def test_memories_filter_without_reload(page, site) -> None:
    server, _ = site
    page.goto(f"{server.url}/ui/memories")
    page.fill("input[name=user_id]", "bob")
    page.select_option("select[name=layer]", "raw")  # htmx swaps the table in place
    expect(page.locator("#memories tr.atom")).to_have_count(1)
    expect(page.locator("#memories")).to_contain_text("Helix")
    assert "user_id=bob" in page.url
    page.goto(f"{server.url}/ui/memories")
    expect(page.locator("#memories")).to_contain_text(ATLAS)
    shot(page, "memories")


def test_a_script_memory_renders_as_text_and_never_runs(page, site) -> None:
    server, ids = site
    page.goto(f"{server.url}/ui/memories?user_id=alice")
    expect(page.locator("#memories")).to_contain_text("<script>window.pwned = 1</script>")
    page.goto(f"{server.url}/ui/memory/{ids['script']}")
    expect(page.locator("#current")).to_contain_text('onerror="window.pwned = 2"')
    assert page.evaluate("typeof window.pwned") == "undefined"


def test_search_shows_the_three_reads_side_by_side(page, site) -> None:
    server, _ = site
    page.goto(f"{server.url}/ui/search")
    page.fill("input[name=q]", "where does alice live and work")
    page.fill("input[name=user_id]", "alice")
    page.click("form.filters button[type=submit]")
    expect(page.locator("#col-conversation")).to_contain_text("Berlin")
    expect(page.locator("#col-search li").first).to_be_visible()
    expect(page.locator("#col-recall li").first).to_be_visible()
    expect(page.locator("#given")).to_be_visible()
    shot(page, "search")


def test_replace_puts_the_new_version_on_top(page, site) -> None:
    server, ids = site
    page.goto(f"{server.url}/ui/memory/{ids['atlas']}")
    shot(page, "history-before")
    form = page.locator("#form-correct")
    form.locator("select[name=action]").select_option("replace")
    form.locator("textarea[name=text]").fill("We deploy the Atlas service on Mondays")
    form.locator("input[name=reason]").fill("the release day moved")
    form.locator("button[type=submit]").click()
    expect(page.locator("#confirm-action")).to_have_text("replace")
    shot(page, "confirm")
    page.click("#confirm-button")
    expect(page.locator("#answer")).to_contain_text("superseded")
    shot(page, "result")
    page.click("#follow")
    top = page.locator("#chain li").first
    expect(top).to_contain_text("on Mondays")
    expect(page.locator("#chain li").nth(1)).to_contain_text("on Fridays")
    expect(page.locator("#steps")).to_contain_text("the release day moved")
    shot(page, "history")
    page.goto(f"{server.url}/ui/memories?user_id=alice")
    expect(page.locator("#memories tr.atom").first).to_contain_text("on Mondays")


def test_a_sealed_memory_is_gone_from_every_page(page, site) -> None:
    server, ids = site
    page.goto(f"{server.url}/ui/memory/{ids['vault']}")
    form = page.locator("#form-govern")
    form.locator("select[name=action]").select_option("seal")
    form.locator("input[name=reason]").fill("a secret")
    form.locator("button[type=submit]").click()
    page.click("#confirm-button")
    expect(page.locator("#answer")).to_contain_text("sealed")
    for path in (
        "/ui/",
        "/ui/memories",
        "/ui/memories?user_id=alice&exposure=sealed",
        f"/ui/memory/{ids['vault']}",
        "/ui/search?q=staging+vault+phrase&user_id=alice",
        "/ui/coding",
    ):
        page.goto(server.url + path)
        assert "tangerine" not in page.content(), path
    page.goto(f"{server.url}/ui/memory/{ids['vault']}")
    expect(page.locator("#current")).to_have_text(HIDDEN.format(state="sealed"))
    shot(page, "history-sealed")


def test_coding_memory_and_chinese(page, site) -> None:
    server, _ = site
    assert site[1]["coding"], "the coding session left no procedure"
    page.goto(f"{server.url}/ui/coding")
    expect(page.locator("#procedures")).to_contain_text("busy_timeout")
    shot(page, "coding")
    page.goto(f"{server.url}/ui/coding?repository=acme/api")
    expect(page.locator("#handoff")).to_contain_text("Atlas deploy checklist")
    page.click("#lang-zh")
    expect(page.locator("header nav")).to_contain_text("总览")
    shot(page, "coding-zh")
    page.goto(f"{server.url}/ui/")
    shot(page, "overview-zh")
    page.click("#lang-en")
