"""Annotated screenshots: the runner records where each action touched the device (through the
action context, so suite steps and planned actions alike) and the artifact pool writes them over
the before screenshot as an SVG (the screenshot's bytes embedded, the marks as shapes)."""

from __future__ import annotations

import base64
import io
import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image

from farm.agent.api import Agent
from farm.config import Settings
from farm.report.marks import marks_svg
from farm.results import ArtifactStore, Mark, image_size
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Step
from tests.unit.test_action_space import case_of, planner, shop, xml

NS = {"s": "http://www.w3.org/2000/svg"}


def svg_of(data: bytes | Path) -> ET.Element:
    """The parsed SVG (fails on anything that is not well-formed XML)."""
    root = ET.fromstring(data.read_bytes() if isinstance(data, Path) else data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def embedded(root: ET.Element, beside: Path | None = None) -> bytes:
    """The bytes of the screenshot the SVG shows: embedded, or (a run's marked copy) the
    file ``beside`` it that it links to by name (never copied: half a run folder was copies)."""
    href = root.find("s:image", NS).get("href")
    if beside is not None:
        assert "/" not in href and not href.startswith("data:"), href
        return (beside / href).read_bytes()
    head, _, data = href.partition(",")
    assert head in ("data:image/jpeg;base64", "data:image/png;base64")
    return base64.b64decode(data)


def num(el: ET.Element, *names: str) -> list[float]:
    return [float(el.get(n)) for n in names]


def dots(root: ET.Element) -> list[tuple[str, float, float]]:
    """(kind, cx, cy) of each mark's filled dot."""
    return [(g.get("class"), *num(c, "cx", "cy")) for g in root.findall("s:g", NS)
            for c in g.findall("s:circle", NS) if c.get("fill") != "none"]


def jpeg(size: tuple[int, int], color: str = "white") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "JPEG", quality=70)
    return buf.getvalue()


def test_steps_record_where_they_acted_and_the_marked_shot_shows_it(tmp_path):
    case = case_of(Step(kind="aiInput", target="Password", value="pw"),
                   Step(kind="aiTap", target="Sign in"))
    store = ArtifactStore(tmp_path)
    services = Services(settings=Settings(), artifacts=store, run_id="r", env={})
    res = run_case(Job(case.id, case.platform, 1), case, shop(), services)
    store.flush()
    assert res.status == "passed", res.error
    typed, tapped = res.steps
    assert [(m.kind, m.points) for m in typed.marks] == [("type", [[110, 25]])]
    assert [(m.kind, m.points) for m in tapped.marks] == [("tap", [[60, 75]])]
    assert tapped.rect == [10, 60, 100, 30] and tapped.tier == "text"
    assert tapped.marked.endswith("step2-marked.svg")
    root = svg_of(tmp_path / tapped.marked)
    beside = (tmp_path / tapped.marked).parent
    assert embedded(root, beside) == (tmp_path / tapped.before).read_bytes()   # not redrawn
    w, h = tapped.screen
    img_w, img_h = Image.open(tmp_path / tapped.before).size
    assert root.get("viewBox") == f"0 0 {w} {img_h * w / img_w:g}"   # marks in device units
    assert (root.get("width"), root.get("height")) == (str(img_w), str(img_h))
    assert dots(root) == [("tap", 60, 75)]
    box = root.find("s:rect[@class='located']", NS)
    assert num(box, "x", "y", "width", "height") == [10, 60, 100, 30]
    assert root.find("s:g[@class='tier']/s:text", NS).text == "text"
    field = svg_of(tmp_path / typed.marked).find("s:rect[@class='type']", NS)
    x, y, side = num(field, "x", "y", "width")
    assert (x + side / 2, y + side / 2) == (110, 25)


def test_a_marked_copy_waits_for_its_screenshot_and_never_comes_without_it(tmp_path):
    """The before screenshot may still be a capture in flight when the step ends: its marked
    copy is written once it is stored, and not at all when it never is."""
    store = ArtifactStore(tmp_path)
    before = store.path_for("c", 1, "001-before")
    shot = jpeg((40, 20))
    marked = store.derive(before, "step1-marked", lambda data: b"<svg>" + data[:3] + b"</svg>")
    lost = store.derive(store.path_for("c", 1, "002-before"), "step2-marked", lambda d: d)
    store.flush()
    assert not (tmp_path / marked).exists()
    store.store(before, shot)
    store.flush()
    assert (tmp_path / marked).read_bytes() == b"<svg>" + shot[:3] + b"</svg>"
    assert marked.endswith(".svg") and not (tmp_path / lost).exists()
def test_a_step_after_an_unchanged_screen_keeps_its_marked_copy(tmp_path):
    """When the capture after a step finds the screen unchanged, that image is never written
    and the previous one stands for it: the next step's marked copy is made from that one
    (it used to wait for the unwritten image forever, and the report showed no marks)."""
    device = shop()
    first = []

    def capture_evidence():          # as the browser does: None when nothing changed
        image = None if first else device.screenshot()
        first.append(image)
        return lambda: image

    device.capture_evidence = capture_evidence
    case = case_of(Step(kind="aiInput", target="Password", value="pw"),
                   Step(kind="aiTap", target="Sign in"))
    store = ArtifactStore(tmp_path)
    services = Services(settings=Settings(), artifacts=store, run_id="r", env={})
    res = run_case(Job(case.id, case.platform, 1), case, device, services)
    store.flush()
    assert res.status == "passed", res.error
    typed, tapped = res.steps
    assert tapped.before == typed.before          # the unchanged screen's stand-in
    root = svg_of(tmp_path / tapped.marked)
    beside = (tmp_path / tapped.marked).parent
    assert embedded(root, beside) == (tmp_path / tapped.before).read_bytes()
    assert dots(root) == [("tap", 60, 75)]


def test_a_marked_copy_follows_the_image_that_stands_for_its_screenshot(tmp_path):
    store = ArtifactStore(tmp_path)
    first, same, failed = (store.path_for("c", 1, n) for n in ("001-a", "002-b", "003-c"))
    shot = jpeg((40, 20))
    store.store(first, shot)
    marked = store.derive(same, "step2-marked", lambda data: data)
    lost = store.derive(failed, "step3-marked", lambda data: data)
    store.stands_for(same, first)       # the screen had not changed
    store.stands_for(failed, None)      # the capture failed
    store.flush()
    assert (tmp_path / marked).read_bytes() == shot and not (tmp_path / lost).exists()


def test_a_planned_swipe_is_a_path_with_the_model_s_thought():
    device = shop()
    agent = Agent(device, planner(
        "<thought>the list is below</thought><log>swipe up</log>"
        + xml("Swipe", {"direction": "up", "distance": 100}),
        '<complete success="true">done</complete>'))
    agent.ai_act("see the list")
    (mark,) = agent.acted
    w, h = device.size()
    assert mark["kind"] == "swipe" and mark["points"] == [[w // 2, h // 2], [w // 2, h // 2 - 100]]
    assert mark["note"] == "the list is below · swipe up"


def test_marks_scale_with_the_screenshot():
    """A 400x200 screen stored at 200x100: the SVG shows the image at its pixel size, its
    viewBox is the screen, so the marks keep device coordinates."""
    root = svg_of(marks_svg(jpeg((200, 100)), [Mark(kind="tap", points=[[300, 150]])],
                            [250, 120, 100, 60], "xpath", [400, 200]))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == \
        ("200", "100", "0 0 400 200")
    assert num(root.find("s:image", NS), "x", "y", "width", "height") == [0, 0, 400, 200]
    assert dots(root) == [("tap", 300, 150)]
    box = root.find("s:rect[@class='located']", NS)
    assert num(box, "x", "y", "width", "height") == [250, 120, 100, 60]


def test_every_kind_of_mark_is_drawn_where_it_acted():
    marks = [Mark(kind="long_press", points=[[10, 20]]), Mark(kind="double_tap", points=[[30, 40]]),
             Mark(kind="swipe", points=[[100, 300], [100, 100]]),
             Mark(kind="scroll", points=[[50, 50], [50, 90]], note="scroll down")]
    root = svg_of(marks_svg(jpeg((360, 400)), marks, None, None, [360, 400]))
    assert dots(root) == [("long_press", 10, 20), ("double_tap", 30, 40)]
    rings = {g.get("class"): len(g.findall("s:circle[@class='ring']", NS))
             for g in root.findall("s:g", NS)}
    assert rings["long_press"] == 1 and rings["double_tap"] == 2
    for kind, (a, b) in (("swipe", ((100, 300), (100, 100))), ("scroll", ((50, 50), (50, 90)))):
        arrow = root.find(f"s:g[@class='{kind}']", NS)
        line = arrow.find("s:line", NS)
        assert tuple(num(line, "x1", "y1")) == a
        tip = arrow.find("s:polygon", NS).get("points").split()[0]
        assert tuple(float(v) for v in tip.split(",")) == b        # the head points at the end
    band = root.find("s:g[@class='caption']", NS)
    assert [t.text for t in band.findall("s:text", NS)] == ["scroll down"]
    top = float(band.find("s:rect", NS).get("y"))
    assert 300 < top < 400       # along the bottom edge


def test_text_from_the_model_and_users_cannot_break_out_of_the_svg():
    """Notes (the model's words) and the tier label are text, never markup: a note that holds
    tags, quotes, entities and characters XML forbids still parses, shows as written."""
    note = 'a </text><script>alert(1)</script> & "q" \'s\' &amp; \x01 \ud800 end'
    svg = marks_svg(jpeg((200, 100)), [Mark(kind="tap", points=[[5, 5]], note=note)],
                    [1, 2, 3, 4], '<b onload="x">', [200, 100])
    root = svg_of(svg)
    assert not [el for el in root.iter() if el.tag.endswith(("script", "}b"))]
    assert root.find("s:g[@class='tier']/s:text", NS).text == '<b onload="x">'
    shown = " ".join(t.text for t in root.findall("s:g[@class='caption']/s:text", NS))
    assert shown == note.replace("\x01", "\ufffd").replace("\ud800", "\ufffd")
    assert b"<script>" not in svg


def test_a_long_note_wraps_in_at_most_three_lines_and_a_png_keeps_its_type():
    png = io.BytesIO()
    Image.new("RGB", (300, 150), "white").save(png, "PNG")
    assert image_size(png.getvalue()) == ("image/png", (300, 150))
    assert image_size(jpeg((31, 17))) == ("image/jpeg", (31, 17))
    root = svg_of(marks_svg(png.getvalue(), [Mark(kind="tap", points=[[1, 1]],
                                                  note="word " * 500)], None, None, [600, 300]))
    lines = [t.text for t in root.findall("s:g[@class='caption']/s:text", NS)]
    assert len(lines) == 3 and lines[-1].endswith("…")
    assert embedded(root) == png.getvalue()


def test_a_failed_ai_assert_keeps_the_model_s_reasoning(tmp_path):
    """With errorMessage the step fails with the suite's words and the model's reason (as
    Midscene words it), and the report still shows why the model judged it false (the step's
    output)."""
    from farm.llm.client import ScriptedModelClient
    from tests.unit.test_agent_insight import STATEMENT, app, judge_of, run_steps
    dev = app()
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken"})])
    assert res.status == "failed" and res.error.message == (
        "Assertion failed: login is broken\nReason: a spinner is still shown (look 1)")
    assert res.steps[0].output.startswith("the model: ") and "spinner" in res.steps[0].output
