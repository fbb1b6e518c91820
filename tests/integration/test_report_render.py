"""report.html in real Chromium: no console errors, filters and search work, images load."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.report.html import write_html
from farm.report.marks import marks_svg
from farm.results import CaseError, CaseResult, Mark, RunSummary, StepRecord

pytestmark = pytest.mark.integration

SCREENSHOT = Path("/tmp/farm-report-render.png")
SCREEN = [780, 1688]              # the device's size; its screenshots are stored at half that
TAP = [390, 460]                  # the centre of the grey box drawn at (30, 200, 330, 60) / 2


def _marked(run_dir: Path, before: str) -> str:
    """The marked copy farm writes: an SVG of the before shot with the tap and box over it."""
    rel = before.replace("-before.jpg", "-marked.svg")
    (run_dir / rel).write_bytes(marks_svg(
        (run_dir / before).read_bytes(), [Mark(kind="tap", points=[TAP], note="tap <Sign in>")],
        [60, 400, 660, 120], "xpath", SCREEN))
    return rel


def _jpeg(run_dir: Path, rel: str, color: str, size=(390, 844)) -> str:
    from PIL import Image, ImageDraw

    path = run_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, size[0], 70], fill=color)
    draw.rectangle([30, 200, size[0] - 30, 260], outline="gray", width=3)
    img.save(path, "JPEG", quality=70)
    return rel


def _summary(run_dir: Path) -> RunSummary:
    def steps(case: str, n: int, fail_at: int | None = None) -> list[StepRecord]:
        out = []
        for i in range(1, n + 1):
            status = "failed" if i == fail_at else "passed"
            base = f"artifacts/{case}/attempt-1/step-{i}"
            before = _jpeg(run_dir, f"{base}-before.jpg", "#c8d1dc")
            out.append(StepRecord(
                task="Open the app" if i <= 2 else "Sign in", index=i, kind="aiTap", line=8 + i,
                label=f'aiTap "button {i}"', status=status, duration=0.2 * i,
                tier="xpath" if i % 2 else "text",
                before=before, marked=_marked(run_dir, before) if i > 1 else None,
                marks=[Mark(kind="tap", points=[TAP])] if i > 1 else [], screen=SCREEN,
                after=_jpeg(run_dir, f"{base}-after.jpg",
                            "#1a7f37" if status == "passed" else "#cf222e"),
                error='text "Welcome" not found' if status == "failed" else None))
        return out

    def case(name: str, status: str, **kw) -> CaseResult:
        cid = "demo/" + name.lower().replace(" ", "-")
        return CaseResult(run_id="20240501-100000-ab12", case_id=cid, name=name,
                          file=f"suites/{cid}.yaml", line=1, platform="web", device="browser-1",
                          status=status, duration=4.2, **kw)

    cases = [
        case("Login works", "passed", steps=steps("login", 4),
             tokens={"prompt": 1834, "completion": 96}),
        case("Search finds products", "passed", steps=steps("search", 3)),
        case("Checkout shows total", "failed", steps=steps("checkout", 4, fail_at=4),
             screenshot=_jpeg(run_dir, "artifacts/checkout/attempt-1/failure.jpg", "#cf222e"),
             error=CaseError(kind="AssertionFailed", message='text "Welcome" not found', step=4)),
        case("Profile page", "error", attempt=2,
             error=CaseError(kind="DeviceLost", message="browser closed unexpectedly"),
             previous=[case("Profile page", "error",
                            error=CaseError(kind="DeviceLost", message="page crashed"))]),
        case("Cart badge", "flaky", attempt=2, steps=steps("cart", 2),
             previous=[case("Cart badge", "failed",
                            error=CaseError(kind="LocateError", message="no element 'Add'"))]),
        case("Needs a model", "skipped", reason="step 1 aiAct needs a model"),
        case("<script>alert(1)</script>", "passed"),
    ]
    return RunSummary(run_id="20240501-100000-ab12", started="2024-05-01T10:00:00.000+00:00",
                      duration=63.0, devices=["browser-1", "browser-2"], cases=cases,
                      farm_version="0.1.0")


@pytest.fixture
def viewer_context_args() -> dict:
    return {"viewport": {"width": 1280, "height": 900}}


def test_report_renders_without_console_errors(tmp_path: Path, viewer_page, page_errors) -> None:
    report = write_html(_summary(tmp_path), tmp_path)
    page = viewer_page
    page.goto(report.as_uri())
    page.wait_for_load_state("load")

    cases = page.locator("details.case")
    assert cases.count() == 7
    assert page.locator("#shown").inner_text() == "7 of 7 cases"

    # the failed case is open and its screenshots really load
    failed = page.locator('details.case[data-status="failed"]')
    assert failed.get_attribute("open") is not None
    failed.locator("img.shot").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('details[open] img')]"
        ".every(i => i.complete && i.naturalWidth > 0)")
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    # status filter
    page.click('button[data-filter="passed"]')
    assert page.locator("details.case:visible").count() == 3
    assert failed.is_hidden()
    page.click('button[data-filter="all"]')
    assert page.locator("details.case:visible").count() == 7

    # search by name (case-insensitive), combined with the status filter
    page.fill("#search", "CHECKOUT")
    assert page.locator("details.case:visible").count() == 1
    assert failed.is_visible()
    page.click('button[data-filter="passed"]')
    assert page.locator("details.case:visible").count() == 0
    assert page.locator("#empty").is_visible()
    page.click('button[data-filter="all"]')
    # by why a case failed, words in any order; an earlier attempt's error counts too
    page.fill("#search", "not found welcome")
    assert page.locator("details.case:visible").count() == 1 and failed.is_visible()
    page.fill("#search", "page crashed")
    assert page.locator("details.case:visible").all_inner_texts()[0].count("Profile page")
    assert page.locator("details.case:visible").count() == 1
    page.fill("#search", "")

    # thumbnails open in the lightbox; Escape closes it
    failed.locator(".steps img").first.click()
    assert page.locator("#lightbox").is_visible()
    assert "before step 1" in page.locator("#lightbox figcaption").inner_text()
    page.keyboard.press("Escape")
    assert page.locator("#lightbox").is_hidden()

    # a marked copy (SVG) opens in the lightbox too, with its tap dot where the step tapped
    failed.locator(".steps img.marked").first.click()
    box = page.locator("#lightbox img")
    assert box.get_attribute("src").endswith("step-2-marked.svg")
    assert "where it acted at step 2" in page.locator("#lightbox figcaption").inner_text()
    page.wait_for_function("() => { const i = document.querySelector('#lightbox img');"
                           " return i.complete && i.naturalWidth === 390; }")
    from PIL import Image
    shown = Image.open(io.BytesIO(box.screenshot())).convert("RGB")
    scale = shown.width / SCREEN[0]

    def red(x: float, y: float) -> bool:
        r, g, b = shown.getpixel((round(x * scale), round(y * scale)))
        return r > 180 and g < 90 and b < 120

    assert red(*TAP) and not red(TAP[0] + 60, TAP[1])       # the dot, and beside it none
    page.keyboard.press("Escape")

    assert page_errors == []


def test_data_and_deselected_tables_keep_each_cell_in_its_column(tmp_path: Path,
                                                                 viewer_page) -> None:
    """The Data table (aiQuery & co.'s named outputs) and the deselected cases' table took the
    step table's columns: a name longer than 40 px ("cartTotal") ran under its value, a
    deselected case's name under its file, its reason right-aligned and cut off."""
    from farm.results import DeselectedCase
    summary = _summary(tmp_path)
    summary.cases[0].data = {"cartTotal": 42, "productNames": ["Mug", "Tee"]}
    summary.deselected = [DeselectedCase(
        case_id="demo/login_on_phone", name="Log in on a phone", platform="android",
        file="suites/demo/login_on_phone.yaml", reason="no android device in --devices")]
    viewer_page.goto(write_html(summary, tmp_path).as_uri())
    viewer_page.click('button[data-expand="open"]')
    viewer_page.click("#deselected summary")
    # every cell's content fits its cell: nothing runs into the next column
    overflowing = viewer_page.eval_on_selector_all(
        "section.data td, #deselected td",
        "tds => tds.filter(td => td.scrollWidth > td.clientWidth).map(td => td.textContent)")
    assert overflowing == []
    why = viewer_page.locator("#deselected td").nth(3)
    assert why.evaluate("td => getComputedStyle(td).textAlign") in ("left", "start")


def test_a_device_quarantined_at_the_run_s_end_keeps_its_label_on_the_page(
        tmp_path: Path, viewer_page) -> None:
    """The timeline's "quarantined" label goes after the device's last bar: for a device whose
    last attempt ended with the run it went past the track's end, and the page scrolled
    sideways (1312 px for 1280)."""
    summary = _summary(tmp_path)
    for i, case in enumerate(summary.cases):        # one after the other; the last ends the run
        case.started = f"2024-05-01T10:00:{10 * i:02d}+00:00"
    last = summary.cases[-1]
    summary.quarantined = [last.device]
    viewer_page.goto(write_html(summary, tmp_path).as_uri())
    assert viewer_page.evaluate("document.documentElement.scrollWidth") <= 1280
    label, track = (viewer_page.locator(f'.lane[data-device="{last.device}"] {s}').bounding_box()
                    for s in (".q", ".track"))
    assert label["x"] + label["width"] <= track["x"] + track["width"] + 1
