"""The relevance console in a real headless Chromium (Debian's chromium and chromedriver, driven by
Selenium) against the control API of the real stack, served over HTTP: a wrong key shows the API's
error; the admin key loads models, pipelines and drift; a clinical pipeline compared with /v1/search
(boosts on) fills both columns with records, sections, route notes and component scores, marked as
the JSON endpoint marks them; real evaluation runs are drawn as lines.

With BIOHYBRID_CONSOLE_SCREENSHOTS=1 the screenshots go to docs/images/ (the console's docs page shows
them); otherwise to the test's tmp folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.api.console_app import ADMIN, CONFIGURATIONS, ConsoleApp, console_app, evaluate, served
from integration.api.stack import ApiStack, headers, secret
from opensearchpy import OpenSearch
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from control_plane.locations import REPOSITORY_ROOT

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOTS_ENV = "BIOHYBRID_CONSOLE_SCREENSHOTS"
DOCS_IMAGES = REPOSITORY_ROOT / "docs" / "images"
QUESTION = "adverse events of the treatment"
SIZE = 5
WAIT_S = 60


def browser() -> WebDriver:
    """Headless Chromium through the Debian chromedriver, named explicitly (Selenium Manager downloads
    nothing)."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(f"no {', '.join(missing)}: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)


@pytest.fixture(scope="module")
def console(
    client: OpenSearch, stack: ApiStack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ConsoleApp]:
    made = console_app(client, stack, tmp_path_factory.mktemp("console-browser"))
    try:
        yield made
    finally:
        client.indices.delete(index=made.runs_index, ignore_unavailable=True)


@pytest.fixture(scope="module")
def driver() -> Iterator[WebDriver]:
    chrome = browser()
    try:
        yield chrome
    finally:
        chrome.quit()


def screenshots(tmp_path: Path) -> Path:
    if os.environ.get(SCREENSHOTS_ENV) == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        return DOCS_IMAGES
    return tmp_path


def use_key(driver: WebDriver, key: str) -> str:
    """Enter ``key`` and wait for the page to accept or refuse it; the page's state (yes / error)."""
    driver.execute_script("document.body.dataset.ready = ''")
    field = driver.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key)
    driver.find_element(By.ID, "key-use").click()
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    return str(driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))


def test_the_console_compares_plots_and_refuses_a_wrong_key(
    console: ConsoleApp, driver: WebDriver, stack: ApiStack, tmp_path: Path
) -> None:
    runs = [evaluate(console), evaluate(console)]
    folder = screenshots(tmp_path)
    with served(console.app) as url:
        driver.get(f"{url}/console")
        assert driver.title == "biohybrid relevance console"

        assert use_key(driver, "not-a-key") == "error"
        error = driver.find_element(By.ID, "error")
        assert error.is_displayed() and error.text == "401: unknown API key"

        assert use_key(driver, secret(ADMIN)) == "yes"
        assert not driver.find_element(By.ID, "error").is_displayed()
        models = driver.find_elements(By.CSS_SELECTOR, "#models td")
        assert "DEPLOYED" in [cell.text for cell in models]
        assert "search_pipeline/clinical-minmax" in driver.find_element(By.ID, "resources").text

        driver.find_element(By.ID, "question").send_keys(QUESTION)
        size = driver.find_element(By.ID, "size")
        size.clear()
        size.send_keys(str(SIZE))
        Select(driver.find_element(By.ID, "a-kind")).select_by_value("pipeline")
        Select(driver.find_element(By.ID, "a-pipeline")).select_by_value("clinical-minmax")
        Select(driver.find_element(By.ID, "b-kind")).select_by_value("search")
        assert driver.find_element(By.ID, "b-boosts").is_selected()
        driver.find_element(By.ID, "compare").click()
        WebDriverWait(driver, WAIT_S).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#column-b li.hit")) == SIZE
        )

        expected = (
            console.app.test_client()
            .post(
                "/v1/admin/console/compare",
                headers=headers(ADMIN),
                json={
                    "question": QUESTION,
                    "size": SIZE,
                    "a": {"kind": "pipeline", "pipeline": "clinical-minmax"},
                    "b": {
                        "kind": "search",
                        "options": {"fusion_method": "rrf", "boosts": True, "rerank": False},
                    },
                },
            )
            .get_json()
        )
        for side, column in zip("ab", expected["columns"], strict=True):
            cards = driver.find_elements(By.CSS_SELECTOR, f"#column-{side} li.hit")
            shown = [
                (
                    card.get_attribute("data-chunk-id"),
                    card.find_element(By.CLASS_NAME, "mark").text,
                    card.find_element(By.CLASS_NAME, "record").text,
                    card.find_element(By.CLASS_NAME, "route").text,
                )
                for card in cards
            ]
            assert shown == [
                (h["chunk_id"], h["mark"]["label"], h["doc_id"], h["route_note"]) for h in column["hits"]
            ]
            for card in cards:
                assert card.find_element(By.CLASS_NAME, "section").text not in ("", "(no section)")
                assert card.find_element(By.CLASS_NAME, "record").text in stack.tenant_docs["tenant-a"]
                assert card.find_element(By.CLASS_NAME, "scores").text.startswith("bm25 ")
            assert any("dense –" not in c.find_element(By.CLASS_NAME, "scores").text for c in cards)
        summary = driver.find_element(By.ID, "diff-summary").text
        assert summary.startswith(f"{expected['diff']['shared']} hits in both")
        driver.find_element(By.ID, "compare-section").screenshot(str(folder / "console-compare.png"))

        # the two real runs, one line per configuration, a point per run
        lines = driver.find_elements(By.CSS_SELECTOR, "#runs-plot polyline.series")
        assert [line.get_attribute("data-series").split(" · ")[0] for line in lines] == CONFIGURATIONS
        assert len(driver.find_elements(By.CSS_SELECTOR, "#runs-plot circle.point")) == len(
            CONFIGURATIONS
        ) * len(runs)
        assert all(len(line.get_attribute("points").split()) == len(runs) for line in lines)
        assert "4 stored results" in driver.find_element(By.ID, "runs-state").text
        driver.find_element(By.ID, "runs-section").screenshot(str(folder / "console-runs.png"))

    assert (folder / "console-compare.png").stat().st_size > 10_000
    assert (folder / "console-runs.png").stat().st_size > 5_000
