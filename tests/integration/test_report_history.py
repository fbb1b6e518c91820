"""Three nightly runs of one suite through `farm run` (real Chromium), then the morning after:
`farm report --history` opened in Chromium, each run's report saying new / flaky, the
annotated screenshot of a tap, the timeline, named data, deselected cases, and junit.xml /
Allure results that CI servers' schemas accept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "tests" / "schemas"
PRESENT, ABSENT = "Farm Shop", "Text that is not on the page"

FARM_YAML = f"""
timeout: 60
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    env: FARM_DEMO_URL
"""


def _case(name: str, flow: str, target: str = "web:\n  url: ${FARM_DEMO_URL}/index.html\n"
                                              "  viewportWidth: 1280\n  viewportHeight: 800"
          ) -> str:
    return f"name: {name}\n{target}\ntasks:\n  - name: main\n    flow:\n{flow}"


CASES = {
    "flip.yaml": _case("Flips", "      - assertText: ${FLIP}\n"),
    "turns.yaml": _case("Turns red", "      - assertText: ${TURNS}\n"),
    "tap.yaml": _case("Taps sign in", "      - aiTap: Sign in\n"
                                      "      - javascript: document.title\n"
                                      "        name: title\n"),
    "phone.yaml": _case("On a phone", "      - aiTap: Sign in\n",
                        "android:\n  launch: com.farm.demo.shop"),
}
NIGHTS = [{"FLIP": ABSENT, "TURNS": PRESENT},     # flip fails
          {"FLIP": PRESENT, "TURNS": PRESENT},    # all pass
          {"FLIP": ABSENT, "TURNS": ABSENT}]      # flip fails again, turns turns red


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> dict:
    """Runs the suite three times into one state dir; returns paths and run dirs."""
    from tests.support.farm_cli import FarmCli
    tmp = tmp_path_factory.mktemp("nightly")
    suite = tmp / "nightly"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    for name, text in CASES.items():
        (suite / name).write_text(text)
    cli = FarmCli(tmp)
    runs = []
    try:
        for i, env in enumerate(NIGHTS, 1):
            extra = ["--alluredir", str(tmp / "allure")] if i == 3 else []
            done = cli.run("run", suite, "--devices", "browser:2", "--no-progress",
                           "--report-dir", tmp / f"night{i}", *extra, **env)
            assert done.returncode == (0 if i == 2 else 1), done.stdout + done.stderr
            runs.append(tmp / f"night{i}")
        page = cli.run("report", "--history", "--since", "7d", "--out", tmp / "history.html")
        assert page.returncode == 0, page.stdout + page.stderr
    finally:
        cli.close()
    return {"tmp": tmp, "runs": runs, "history": tmp / "history.html",
            "page_out": page.stdout}


def _results(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())


def _case_of(results: dict, name: str) -> dict:
    return next(c for c in results["cases"] if c["case_id"] == f"nightly/{name}")


def test_history_page_shows_flaky_ranking_and_new_failure(nights, viewer_page, page_errors):
    assert str(nights["history"].resolve()) in nights["page_out"]
    page = viewer_page
    page.goto(nights["history"].as_uri())
    page.wait_for_load_state("load")
    assert page.locator("#run-count").inner_text() == "3"
    flaky = page.locator("#flaky tbody tr")
    assert flaky.count() == 1
    assert flaky.first.get_attribute("data-case") == "nightly/flip"
    assert "2 · 0 / 3" in flaky.first.inner_text()     # failed · flaky / runs
    latest = {row.get_attribute("data-case"): row.locator(".verdict").inner_text()
              for row in page.locator("#latest tbody tr").all()}
    assert latest == {"nightly/turns": "new failure",       # failed, passed, failed again:
                      "nightly/flip": "failed (unstable across runs: 2 of last 3 failed)"}
    rates = [r.inner_text() for r in page.locator("#runs tbody tr td:nth-child(3)").all()]
    assert rates == ["33.3%", "100.0%", "66.7%"]       # newest first
    # each run links to its own report
    page.locator("#runs tbody tr").first.locator("a").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("night3/report.html")
    assert page.locator("details.case").count() == 3
    assert page.locator('details.case[data-q*="nightly/turns"] .since').inner_text() == \
        "new failure"
    assert page.locator('details.case[data-q*="nightly/flip"] .since').inner_text() == \
        "unstable across runs"      # (results.json's since_last "unstable": not a retry's pass)
    # one lane per browser that ran a case (under load one browser may run all three first)
    ran_on = {c["device"] for c in _results(nights["runs"][2])["cases"]}
    lanes = {lane.get_attribute("data-device") for lane in page.locator("#timeline .lane").all()}
    assert lanes == ran_on and 1 <= len(lanes) <= 2
    assert "On a phone" in page.locator("#deselected").text_content()
    assert page_errors == []


def test_each_run_knows_what_is_new(nights):
    first, _, third = (_results(r) for r in nights["runs"])
    assert _case_of(first, "flip").get("since_last") is None     # (a first run: no verdict)
    assert _case_of(third, "flip")["since_last"] == "unstable"
    assert _case_of(third, "turns")["since_last"] == "new failure"
    assert third["counts"]["total"] == 3                 # the phone case is not counted
    assert [d["case_id"] for d in third["deselected"]] == ["nightly/phone"]
    assert _case_of(third, "tap")["data"] == {"title": "Login | Farm Shop"}


def test_the_tap_is_marked_inside_the_element(nights, viewer_page, page_errors):
    """The annotated screenshot of `aiTap: Sign in` (an SVG over the before screenshot) has the
    dot at the centre of the element's rect and the located box on the rect, in the device's
    coordinates; the run's report shows it, and in the browser the dot is red where the plain
    screenshot before it has none."""
    import io
    import xml.etree.ElementTree as ET

    from PIL import Image
    run_dir = nights["runs"][1]
    step = _case_of(_results(run_dir), "tap")["steps"][0]
    assert step["kind"] == "aiTap" and step["tier"] and step["marked"].endswith(".svg")
    assert [m["kind"] for m in step["marks"]] == ["tap"]
    x, y, w, h = step["rect"]
    ns = {"s": "http://www.w3.org/2000/svg"}
    svg = ET.parse(run_dir / step["marked"]).getroot()
    assert svg.get("viewBox").split()[:3] == ["0", "0", str(step["screen"][0])]
    image = svg.find("s:image", ns).get("href")       # the before JPEG beside it, by name
    assert (run_dir / step["marked"]).parent / image == run_dir / step["before"]
    (dot,) = svg.findall("s:g[@class='tap']/s:circle", ns)
    cx, cy = float(dot.get("cx")), float(dot.get("cy"))
    assert (cx, cy) == tuple(step["marks"][0]["points"][0])
    assert x <= cx <= x + w and y <= cy <= y + h and abs(cx - (x + w / 2)) <= 1
    box = svg.find("s:rect[@class='located']", ns)
    assert [float(box.get(k)) for k in ("x", "y", "width", "height")] == [x, y, w, h]
    assert svg.find("s:g[@class='tier']/s:text", ns).text == step["tier"]

    page = viewer_page
    page.goto((run_dir / "report.html").as_uri())
    page.wait_for_load_state("load")
    page.evaluate("document.querySelectorAll('details.case').forEach(d => d.open = true)")
    shot = page.locator(f'img.marked[src="{step["marked"]}"]')
    shot.click()                                              # opens in the lightbox
    box_img = page.locator("#lightbox img")
    assert box_img.get_attribute("src") == step["marked"]
    page.wait_for_function("() => { const i = document.querySelector('#lightbox img');"
                           " return i.complete && i.naturalWidth > 0; }")
    marked = Image.open(io.BytesIO(box_img.screenshot())).convert("RGB")
    before = Image.open(run_dir / step["before"]).convert("RGB")

    def red(img, px, py) -> bool:
        scale = img.width / step["screen"][0]
        r, g, b = img.getpixel((round(px * scale), round(py * scale)))
        return r > 180 and g < 90 and b < 120

    around = [(cx + dx, cy + dy) for dx in (-3, 0, 3) for dy in (-3, 0, 3)]
    assert all(red(marked, *p) for p in around)
    assert not any(red(before, *p) for p in around)
    assert page_errors == []


def test_ci_formats_validate(nights):
    import jsonschema
    import xmlschema
    run_dir = nights["runs"][2]
    junit = run_dir / "junit.xml"
    xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd")).validate(str(junit))
    text = junit.read_text()
    shot = (run_dir / _case_of(_results(run_dir), "flip")["screenshot"]).resolve()
    assert f"[[ATTACHMENT|{shot}]]" in text and 'classname="nightly"' in text
    schema = json.loads((SCHEMAS / "allure-result.schema.json").read_text())
    results = [json.loads(p.read_text()) for p in (nights["tmp"] / "allure").glob("*-result.json")]
    assert len(results) == 3
    for result in results:
        jsonschema.validate(result, schema)
    by_name = {r["fullName"]: r for r in results}
    assert by_name["nightly/turns"]["status"] == "failed"
    # red, its verdict flipping across runs: not Allure's flaky (passed on a retry in this run)
    assert by_name["nightly/flip"]["statusDetails"].get("flaky") is not True
    labels = {(x["name"], x["value"]) for x in by_name["nightly/tap"]["labels"]}
    assert ("platform", "web") in labels and any(k == "device" for k, _ in labels)
    tapped = by_name["nightly/tap"]["steps"][0]["attachments"][0]       # the marked copy
    assert tapped["type"] == "image/svg+xml" and tapped["source"].endswith(".svg")
    assert (nights["tmp"] / "allure" / tapped["source"]).read_bytes().startswith(b"<svg ")


def test_a_shared_history_in_redis(redis_url, tmp_path):
    """The cluster's results history: runs from two machines land in one Redis, come back
    oldest first and by window, and `farm report --history --results URL` reads them."""
    import secrets

    from farm.cluster.store import connect
    from farm.results import CaseResult, RunSummary
    from farm.results_history import RedisResults, record_for
    from tests.support.farm_cli import FarmCli

    def night(run_id: str, day: int, status: str) -> RunSummary:
        case = CaseResult(run_id=run_id, case_id="nightly/flip", name="Flips", file="f.yaml",
                          platform="web", device="browser-1", status=status, duration=1.0)
        return RunSummary(run_id=run_id, started=f"2026-01-0{day}T02:00:00+00:00",
                          cases=[case])

    prefix = f"farmtest-{secrets.token_hex(4)}"
    client = connect(redis_url)
    try:
        for i, status in enumerate(["failed", "passed", "failed"], 1):
            RedisResults(connect(redis_url), prefix).add(record_for(night(f"r{i}", i, status)))
        store = RedisResults(client, prefix)
        assert [r.run_id for r in store.runs()] == ["r1", "r2", "r3"]
        assert [r.run_id for r in store.recent(2)] == ["r2", "r3"]
        cli = FarmCli(tmp_path)
        done = cli.run("report", "--history", "--results", redis_url, "--out",
                       tmp_path / "h.html", FARM_CLUSTER_PREFIX=prefix)
        assert done.returncode == 0, done.stderr
        assert 'data-case="nightly/flip"' in (tmp_path / "h.html").read_text()
    finally:
        client.delete(f"{prefix}:results:runs", f"{prefix}:results:index")


def test_a_last_failed_rerun_is_partial_and_the_ranking_names_the_failing_step(
        tmp_path, viewer_page, page_errors):
    """Night 1: nightly/pay fails at its step 2 (ok passes: 50 %). The morning's
    `--last-failed` rerun takes pay alone and it passes (100 % of one case). Night 2: pay fails
    at step 2 again. The history page draws the nights' line through nights 1 and 2 only, the
    rerun a square off it and partial in the runs table; the flaky ranking says pay fails at
    step 2 `assertText "${PAY}"` both times it failed."""
    from tests.support.farm_cli import FarmCli
    suite = tmp_path / "nightly"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "pay.yaml").write_text(_case("Pays", f"      - assertText: {PRESENT}\n"
                                                  "      - assertText: ${PAY}\n"))
    (suite / "ok.yaml").write_text(_case("OK", f"      - assertText: {PRESENT}\n"))
    cli = FarmCli(tmp_path)
    try:
        for name, extra, pay, code in (("night1", [], ABSENT, 1),
                                       ("rerun", ["--last-failed"], PRESENT, 0),
                                       ("night2", [], ABSENT, 1)):
            done = cli.run("run", suite, "--devices", "browser:1", "--no-progress",
                           "--report-dir", tmp_path / name, *extra, PAY=pay)
            assert done.returncode == code, done.stdout + done.stderr
        page_done = cli.run("report", "--history", "--out", tmp_path / "history.html")
        assert page_done.returncode == 0, page_done.stdout + page_done.stderr
    finally:
        cli.close()
    rerun = _results(tmp_path / "rerun")
    assert [(d["case_id"], d["reason"]) for d in rerun["deselected"]] == [
        ("nightly/ok", "--last-failed: did not fail last time")]
    page = viewer_page
    page.goto((tmp_path / "history.html").as_uri())
    page.wait_for_load_state("load")
    assert page.locator("#run-count").inner_text() == "3"
    assert page.locator("#partial-count").all_inner_texts() == ["1"]
    points = page.locator("#pass-rate polyline").get_attribute("points").split()
    assert len(points) == 2                               # the two nights, not the rerun
    square = page.locator("#pass-rate rect.partial")
    assert square.count() == 1 and square.get_attribute("data-run") == rerun["run_id"]
    assert square.locator("title").text_content() == (
        f"{rerun['run_id']}: partial (--last-failed), 100.0% of 1 case(s)")
    row = page.locator(f'#runs tr[data-run="{rerun["run_id"]}"]')
    assert row.locator(".badge.partial").text_content() == "partial"
    assert row.locator("code.selection").inner_text() == "--last-failed"
    flaky = page.locator('#flaky tr[data-case="nightly/pay"] td.steps')
    assert flaky.inner_text().strip() == ('step 2 assertText "${PAY}": 2 of 2 failures '
                                          "AssertionFailed")
    assert page_errors == []
