"""The dashboard in a real browser (Debian's headless Chromium, driven by Playwright)
against a real detached job and `weir dashboard`: `weir run` prints the job's page, the
graph shows the plan's operators, the numbers change as data flows, the watermark
advances, and cancelling from the overview cancels the job, which the overview then shows
as CANCELED. Screenshots go to tests/artifacts/dashboard (or $WEIR_TEST_ARTIFACTS);
with WEIR_DOCS_SCREENSHOT=1 the job page's also becomes docs/dashboard.png (the README's).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import datetime, timezone

import playwright.sync_api as playwright
import pytest

from tests.e2e.shared import wait_until
from tests.e2e.test_cli import ROOT, submitted
from tests.e2e.test_rest import Server, environment  # noqa: F401 (a fixture)

pytestmark = pytest.mark.spark

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
JOB = os.path.join(ROOT, "tests", "e2e", "jobs", "dashboard_clicks.py")
WINDOW = "Window(TumblingEventTimeWindows(5000, 0), EventTimeTrigger(), Reduce)"
OPERATORS = ["clicks", "Timestamps", "Watermarks", "Map", WINDOW, "Sink"]
KEYED = '#graph [data-vertex="clicks-per-page"]'
ROW = '#operators tr[data-vertex="clicks-per-page"]'


@pytest.fixture
def artifacts():
    directory = os.environ.get("WEIR_TEST_ARTIFACTS") or os.path.join(
        ROOT, "tests", "artifacts", "dashboard"
    )
    os.makedirs(directory, exist_ok=True)
    return directory


def records_in(page) -> int:
    text = page.locator(f"{KEYED} .records-in").text_content()
    match = re.fullmatch(r"in ([\d,]+) · [\d.]+/s", text)
    assert match, text
    return int(match.group(1).replace(",", ""))


def watermark(page) -> datetime | None:
    """The window's watermark, None while it shows "No Watermark" (a watermark reaches
    the window a micro-batch after the records it follows)."""
    text = page.locator(f"{ROW} .watermark").text_content()
    if text == "No Watermark":
        return None
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)


def changed(read, before, what, seconds=60):
    """The value `read()` gives once it differs from `before`."""
    seen = [before]

    def differs():
        seen[0] = read()
        return seen[0] != before

    wait_until(differs, what, seconds)
    return seen[0]


def kill_job(server, job, home):
    """Ends the job whatever happened to the test (cancel, else its process group)."""
    if server.get(f"/jobs/{job}")[1].get("state") != "RUNNING":
        return
    server.call("PATCH", f"/jobs/{job}?mode=cancel")
    try:
        wait_until(lambda: server.get(f"/jobs/{job}")[1]["state"] != "RUNNING", "ended", 30)
    except AssertionError:
        with open(os.path.join(home, "jobs", job, "job.json"), encoding="utf-8") as handle:
            os.killpg(json.load(handle)["pid"], signal.SIGKILL)


def test_the_dashboard_of_a_running_job(environment, tmp_path, artifacts):  # noqa: F811
    server = Server(environment, command="dashboard")
    environment = dict(environment, WEIR_DASHBOARD_PORT=str(server.port))
    done = subprocess.run(
        [sys.executable, "-m", "weir", "run", "-d", JOB, str(tmp_path / "out"), "100000", "100"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    job = submitted(done.stdout)
    assert done.stderr == f"Dashboard: http://127.0.0.1:{server.port}/#/jobs/{job}\n"
    base = f"http://127.0.0.1:{server.port}/"
    try:
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.goto(f"{base}#/jobs/{job}")
            wait_until(
                lambda: page.locator(f"{KEYED} .records-in").count() == 1 and records_in(page) > 0,
                "records in the graph",
                120,
            )

            plan = server.get(f"/jobs/{job}/plan")[1]["plan"]
            assert [n["description"] for n in plan["nodes"]] == OPERATORS
            assert page.locator("#graph .vertex > title").all_text_contents() == OPERATORS
            assert (
                page.locator("#graph .vertex .title").all_text_contents()[:4] == OPERATORS[:4]
            )  # (the window's long name wraps in its box)
            assert page.locator("#graph .edge").count() == 5
            assert page.locator("#job-state").text_content() == "RUNNING"

            first = records_in(page)
            second = changed(lambda: records_in(page), first, "more records in")
            assert second > first
            wait_until(lambda: watermark(page) is not None, "a first watermark", 60)
            earlier = watermark(page)
            later = changed(lambda: watermark(page), earlier, "the watermark advancing")
            assert later > earlier
            late = page.locator(f"{ROW} .late")  # every 7th click is a minute late
            wait_until(
                lambda: re.fullmatch(r"[1-9][\d,]*", late.text_content()),
                "late records dropped",
                60,
            )  # (it shows 0 until the first)
            skew = page.locator('#skew [data-vertex="clicks-per-page"] p').first
            wait_until(
                lambda: re.search(r"state [\d.]+ (B|KiB)\.$", skew.text_content()),
                "the window's state size per key group",
                60,
            )
            groups = server.get(f"/jobs/{job}/vertices/clicks-per-page/keygroups")[1]
            assert groups["stateSize"] > 0 and groups["stateSize"] == sum(
                subtask["stateSize"] for subtask in groups["subtasks"]
            )
            assert page.locator("#plots polyline").count() == 4
            page.screenshot(path=os.path.join(artifacts, "job.png"), full_page=True)
            if os.environ.get("WEIR_DOCS_SCREENSHOT") == "1":
                shutil.copy(
                    os.path.join(artifacts, "job.png"), os.path.join(ROOT, "docs", "dashboard.png")
                )

            page.goto(base)
            row = page.locator(f'#jobs tr[data-job-id="{job}"]')
            row.locator(".status").filter(has_text="RUNNING").wait_for(timeout=30_000)
            page.once("dialog", lambda dialog: dialog.accept())
            row.locator("button.cancel").click()
            row.locator(".status").filter(has_text="CANCELED").wait_for(timeout=60_000)
            assert row.locator(".status").text_content() == "CANCELED"
            assert row.locator("button.cancel").is_disabled()
            assert server.get(f"/jobs/{job}")[1]["state"] == "CANCELED"
            page.screenshot(path=os.path.join(artifacts, "overview.png"), full_page=True)
            browser.close()
    finally:
        kill_job(server, job, environment["WEIR_HOME"])
        server.stop()
