"""The web inspector (/ui) in a real browser against a real server with LoCoMo data.

A uvicorn server runs in a thread on a loopback port over a SQLite store holding the first
two LoCoMo dev conversations, ingested with the pipeline (summaries, facts, profiles; two of
the five keep the module's set-up near 30 seconds on two cores). Headless Chromium, driven by
Selenium through chromedriver, uses the page the way a person does: enters an API key, picks
a user, searches, opens evidence and a fact's history, restores a superseded fact, and every
effect is checked through the REST API with httpx.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import httpx
import pytest

from agent_memory import AsyncMemory, Settings

pytest.importorskip("fastapi", reason="the service extra (fastapi) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the service extra (uvicorn) is not installed")

from agent_memory.service import create_app
from agent_memory.service.keys import KeyStore, Scope
from agent_memory.service.settings import ServiceSettings
from agent_memory.service.ui import UI_DIR

from .conftest import serve

pytestmark = pytest.mark.dataset

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
CONVERSATIONS = 2
WAIT = 30.0  # seconds the browser may take for one step (a loaded 2-core machine)


class Inspected:
    """A running service: ``base`` URL, an API key, the users it may see, an httpx client."""

    def __init__(self, base: str, key: str, users: list[str]) -> None:
        self.base = base
        self.key = key
        self.users = users
        # a whole-pool reconcile of a LoCoMo speaker takes tens of seconds on a loaded 2-core
        # machine: the timeout guards against a hang, not against a slow answer
        self.http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"},
                                 timeout=300.0)

    def get(self, path: str, **params):
        response = self.http.get(path, params=params)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict | None = None):
        response = self.http.post(path, json=body)
        response.raise_for_status()
        return response.json()


async def _ingest(store: Path, locomo: Path) -> list[str]:
    from agent_memory.cli.ingest import load_batches
    from agent_memory.ingest import ingest_threads

    batches = load_batches(locomo, "locomo")
    users = list(dict.fromkeys(b.user_id for b in batches))[:CONVERSATIONS]
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        await ingest_threads(memory, [b for b in batches if b.user_id in users])
    return users


@pytest.fixture(scope="module")
def served(tmp_path_factory, locomo_path):
    """The service (the inspector is mounted at /ui by default), over the first LoCoMo
    conversations."""
    root = tmp_path_factory.mktemp("inspector")
    store = root / "memory.db"
    users = asyncio.run(_ingest(store, locomo_path))
    keys = root / "keys.db"
    created = KeyStore(keys).create(Scope(tenant="test", users=tuple(users)), name="inspector")
    app = create_app(Settings.load(store=str(store)),
                     service=ServiceSettings.load(keys_path=str(keys)))
    running = serve(app, None)
    served = Inspected(running.url, created.secret, users)
    yield served
    served.http.close()
    running.stop()


# -- without a browser -------------------------------------------------------------------------


def test_the_inspector_files_are_served_offline_with_a_strict_policy(served):
    with httpx.Client(base_url=served.base) as http:  # no key: the static files hold no data
        folder = http.get("/ui")
        assert folder.status_code == 307 and folder.headers["location"].endswith("/ui/")
        page = http.get("/ui/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        for name in ("app.js", "app.css"):
            asset = http.get(f"/ui/{name}")
            assert asset.status_code == 200
            assert asset.text == (UI_DIR / name).read_text()
            # Nothing is fetched from elsewhere: the page works offline.
            assert "http://" not in asset.text and "https://" not in asset.text
        assert "http://" not in page.text and "https://" not in page.text
        # The API itself still needs the key.
        assert http.get(f"/v1/users/{served.users[0]}/threads").status_code == 401


def test_data_is_never_inserted_as_markup():
    # Every text goes through textContent / text nodes (the el() helper); innerHTML,
    # outerHTML, insertAdjacentHTML and document.write are not used at all.
    script = (UI_DIR / "app.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script


# -- in a browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through chromedriver (skips when either or Selenium is absent)."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("headless browser tests need the Debian packages chromium and "
                    "chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)")
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (the dev extra)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


class _Explained:
    """A WebDriverWait whose timeout names what the page shows: its error banner and the
    browser console's errors."""

    def __init__(self, wait, page: Page) -> None:
        self._wait = wait
        self._page = page

    def until(self, condition):
        from selenium.common.exceptions import TimeoutException

        try:
            return self._wait.until(condition)
        except TimeoutException as exc:
            logs = self._page.driver.get_log("browser")
            raise AssertionError(f"timed out; error banner: {self._page.error()!r}; "
                                 f"console: {[entry['message'] for entry in logs]}") from exc


class Page:
    """The inspector in the browser, with waits for what the page renders."""

    def __init__(self, driver, base: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        self.base = base
        self.by = By
        self.wait = _Explained(WebDriverWait(driver, WAIT), self)

    def find(self, css: str):
        return self.wait.until(lambda d: d.find_element(self.by.CSS_SELECTOR, css))

    def find_all(self, css: str):
        return self.driver.find_elements(self.by.CSS_SELECTOR, css)

    def visible(self, css: str):
        return self.wait.until(lambda d: next(
            (e for e in d.find_elements(self.by.CSS_SELECTOR, css) if e.is_displayed()), False))

    def type(self, css: str, text: str) -> None:
        field = self.visible(css)
        field.clear()
        field.send_keys(text)

    def tab(self, name: str) -> None:
        self.visible(f'#tabs button[data-tab="{name}"]').click()

    def error(self) -> str:
        box = self.driver.find_element(self.by.CSS_SELECTOR, "#error")
        return box.text if box.is_displayed() else ""

    def open(self, key: str, user: str) -> None:
        self.driver.get(f"{self.base}/ui")
        self.type("#api-key", key)
        self.visible("#key-use").click()
        self.visible("#user-id")
        self.type("#user-id", user)
        self.visible("#user-open").click()
        self.visible("#tabs")


@pytest.fixture
def page(browser, served):
    browser.delete_all_cookies()
    browser.get(f"{served.base}/ui/")
    browser.execute_script("sessionStorage.clear()")
    return Page(browser, served.base)


def test_browse_search_history_and_restore_in_a_browser(served, page, tmp_path):
    user = served.users[0]
    api = f"/v1/users/{user}"
    page.open(served.key, user)
    assert page.driver.current_url.endswith("/ui/")

    # Threads and their turns.
    threads = served.get(f"{api}/threads")
    page.wait.until(lambda d: len(page.find_all("[data-thread]")) == len(threads))
    assert [b.text for b in page.find_all("[data-thread]")] == threads
    page.find(f'[data-thread="{threads[0]}"]').click()
    turns = served.get(f"{api}/threads/{threads[0]}/turns")
    page.wait.until(lambda d: len(page.find_all("#detail [data-turn]")) == len(turns))
    assert page.find_all("#detail [data-turn] .content")[0].text == turns[0]["content"].strip()

    # Search: every hit with its per-signal rank and raw score, as the API returns them.
    page.tab("search")
    query = "Caroline LGBTQ support group"
    page.type("#search-query", query)
    page.visible("#search-form button[type=submit]").click()
    hits = served.post(f"{api}/search", {"query": query, "mode": "hybrid", "k": 10})
    assert hits and any(len(h["signals"]) == 2 for h in hits)
    page.wait.until(lambda d: len(page.find_all("#hits tbody tr")) == len(hits))
    for row, hit in zip(page.find_all("#hits tbody tr"), hits, strict=True):
        assert row.get_attribute("data-record") == hit["record"]["id"]
        assert row.find_element(page.by.CSS_SELECTOR, ".score").text == f"{hit['score']:.4f}"
        for signal in ("vector", "text"):
            cells = row.find_elements(page.by.CSS_SELECTOR, f"td.{signal}")
            found = hit["signals"].get(signal)
            if found is None:
                assert [c.text for c in cells] == ["–", "–"]
            else:
                assert cells[0].text == f"#{found['rank']}"
                assert cells[1].text.startswith(f"{found['score']:.4f}")
        assert hit["provenance"]["thread_id"] in row.find_element(
            page.by.CSS_SELECTOR, ".provenance").text

    # Make facts superseded: reconciliation merges duplicate facts (through the API).
    result = served.post(f"{api}/reconcile", {"n": 1000})
    assert result["merged"] >= 1
    retired = [f for f in served.get(f"{api}/memories", kind="fact", include_superseded=True,
                                     limit=1000)["records"] if f["superseded_by"]]
    assert retired
    fact = retired[0]

    # Facts: superseded ones only on demand.
    page.tab("facts")
    page.visible("#facts tbody tr")
    assert not page.find_all(f'#facts tr[data-fact="{fact["id"]}"]')
    page.visible("#show-superseded").click()
    row_css = f'#facts tr[data-fact="{fact["id"]}"]'
    while not page.find_all(row_css):  # page through ("More") to the retired fact
        page.wait.until(lambda d: not page.find_all("#facts-more")
                        or page.find_all(row_css) or page.find("#facts-more").is_displayed())
        if page.find_all(row_css):
            break
        more = page.find("#facts-more")
        assert more.is_displayed(), "the superseded fact is not listed"
        shown = len(page.find_all("#facts tbody tr"))
        more.click()
        page.wait.until(lambda d, n=shown: len(page.find_all("#facts tbody tr")) > n)
    row = page.find(row_css)
    assert "superseded" in row.text
    valid = row.find_element(page.by.CSS_SELECTOR, "td.valid").text  # its valid time
    assert valid.startswith(fact["valid_from"][:10]) and "→" in valid

    # Its evidence turn, one click away.
    evidence = fact["evidence"][0]
    row.find_element(page.by.CSS_SELECTOR, f'[data-evidence="{evidence}"]').click()
    turn = served.get(f"{api}/memories/{evidence}")
    page.visible("#turn-title")
    shown_turn = page.find(f'#detail [data-turn="{evidence}"] .content')
    assert shown_turn.text == turn["content"].strip()

    # Its history: what replaced it and the audit events.
    row.find_element(page.by.CSS_SELECTOR, "button.history").click()
    history = served.get(f"{api}/facts/{fact['id']}/history")
    page.visible("#history-title")
    assert fact["supersede_evidence"]["rationale"] in page.find("#retired").text
    replacement = history["replaced_by"][0]["id"]
    page.find(f'#detail [data-fact="{replacement}"]')
    page.wait.until(lambda d: len(page.find_all("#detail tr.event")) == len(history["events"]))

    # Restore with one click; the API shows the effect.
    page.find(f'#facts [data-restore="{fact["id"]}"]').click()
    page.wait.until(lambda d: not page.find_all(f'[data-restore="{fact["id"]}"]'))
    assert page.error() == ""
    restored = served.get(f"{api}/memories/{fact['id']}")
    assert restored["superseded_by"] is None and restored["pinned"] is True
    after = served.get(f"{api}/facts/{fact['id']}/history")
    assert after["events"][-1]["action"] == "restored"
    page.wait.until(lambda d: len(page.find_all("#detail tr.event")) == len(after["events"]))
    restored_css = f'#detail [data-fact="{fact["id"]}"]'
    assert "active, pinned" in page.find(restored_css).text
    assert "active, pinned" in page.find(row_css).text  # its row in the list, in place

    # Profile, session summaries and the job queue.
    page.tab("profile")
    profile = served.get(f"{api}/profile")
    assert page.visible("#profile-text").text == profile["content"].strip()
    page.wait.until(lambda d: len(page.find_all("#view tr[data-field]")) ==
                    len(profile["fields"]))
    # a two-person conversation: the other speaker's profile is one click away
    people = [b.get_attribute("data-subject") for b in page.find_all("#profile-people button")]
    other = next(name for name in people if name != profile["subject"])
    page.visible(f'#profile-people button[data-subject="{other}"]').click()
    theirs = served.get(f"{api}/profile", subject=other)
    page.wait.until(lambda d: page.visible("#profile-text").text == theirs["content"].strip())
    page.tab("sessions")
    sessions = served.get(f"{api}/sessions")
    page.wait.until(lambda d: len(page.find_all("#view [data-summary]")) == len(sessions))
    page.tab("jobs")
    jobs = served.get(f"{api}/jobs")
    counts = page.visible("#job-counts").text
    assert counts == "no jobs" if not jobs else all(j["state"] in counts for j in jobs)
    assert page.error() == ""

    screenshot = tmp_path / "inspector.png"
    page.tab("search")
    page.visible("#hits tbody tr")
    assert page.driver.save_screenshot(str(screenshot))
    print(f"inspector screenshot: {screenshot}")


def test_problem_details_are_shown_and_record_text_stays_text(served, page, tmp_path):
    user = served.users[1]
    # A turn whose text is markup: the page must show it as text and run nothing.
    markup = '<img src="x" onerror="document.title=\'owned\'"><b>bold?</b>'
    served.post(f"/v1/users/{user}/threads/markup/turns", {"role": "user", "content": markup})
    page.open(served.key, user)
    page.find('[data-thread="markup"]').click()
    content = page.find("#detail [data-turn] .content")
    assert content.text == markup
    assert not page.find_all("#detail img") and not page.find_all("#detail b")
    assert page.driver.title != "owned"

    # A user outside the key's scope: the API's 404 problem, shown as words.
    page.type("#user-id", "someone-else")
    page.visible("#user-open").click()
    page.wait.until(lambda d: page.error())
    assert page.error().startswith("404 Not Found: no such record for this user")

    # A revoked or wrong key: the 401 problem and a hint.
    page.driver.execute_script("sessionStorage.setItem('agent-memory.api-key', arguments[0])",
                               "am_000000000000_" + "x" * 43)
    page.tab("threads")
    page.wait.until(lambda d: page.error().startswith("401"))
    assert "Check the API key" in page.error()
    screenshot = tmp_path / "inspector-error.png"
    assert page.driver.save_screenshot(str(screenshot))
    print(f"inspector screenshot: {screenshot}")
