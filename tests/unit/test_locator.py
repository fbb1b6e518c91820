import pytest

from farm.agent.locator import LocateHit, LocatorChain, TextMatchTier, default_chain
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel


def node(i, role, parent=None, rect=(0, 0, 100, 30), **kw):
    return UINode(id=i, parent=parent, role=role, rect=Rect(x=rect[0], y=rect[1],
                  width=rect[2], height=rect[3]), **kw)


LOGIN = UITree(source="dom", nodes=[
    node(0, "form", rect=(0, 0, 600, 400)),
    node(1, "label", 0, (10, 10, 100, 20), text="Username", clickable=True),
    node(2, "input:text", 0, (120, 10, 200, 20), label="Username",
         placeholder="Enter your username", editable=True, clickable=True),
    node(3, "button", 0, (10, 100, 120, 40), clickable=True, name="Sign in"),
    node(4, "span", 3, (20, 110, 80, 20), text="Sign in"),
    node(5, "a", 0, (10, 200, 80, 20), text="Help", clickable=True),
    node(6, "a", 0, (100, 200, 80, 20), text="Help", clickable=True),
    node(7, "p", 0, (0, 900, 80, 20), text="Terms", visible=False),
])


def test_label_and_input_resolve_to_the_input():
    hit = default_chain().locate("username", FakeDevice(LOGIN))
    assert hit.tier == "text" and hit.rect.x == 120


def test_text_inside_button_resolves_to_the_button():
    hit = default_chain().locate("Sign  in", FakeDevice(LOGIN))
    assert (hit.rect.x, hit.rect.y) == (10, 100)


def test_placeholder_matches():
    assert default_chain().locate("Enter your username", FakeDevice(LOGIN)).rect.x == 120


def test_ambiguous_target_fails_with_candidates():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Help", FakeDevice(LOGIN))
    assert "ambiguous" in str(info.value) and len(info.value.candidates) == 2


def test_near_miss_is_a_test_failure_naming_what_was_seen():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Sign on", FakeDevice(LOGIN))
    assert any("Sign in" in c for c in info.value.candidates)
    # the likest is on the message's first line: the one a CI log and the console show
    assert str(info.value).splitlines()[0] == ('no element matches "Sign on"; the closest on '
                                               'screen is "Sign in" (button)')


def test_offscreen_match_is_reported():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Terms", FakeDevice(LOGIN))
    assert "off-screen" in info.value.candidates[0]


def test_nothing_similar_needs_a_model():
    with pytest.raises(NeedsModel, match="FARM_MODEL"):
        default_chain().locate("the blue cart icon in the corner", FakeDevice(LOGIN))


def test_xpath_tier_wins_and_records_its_tier():
    dev = FakeDevice(LOGIN, xpaths={"//button": [Rect(x=1, y=2, width=3, height=4)]})
    tiers = []
    hit = default_chain(lambda t, ok: tiers.append((t, ok))).locate("Help", dev, xpath="//button")
    assert hit.tier == "xpath" and hit.rect.x == 1 and tiers == [("xpath", True)]


def test_xpath_miss_falls_through_to_text():
    hit = default_chain().locate("Sign in", FakeDevice(LOGIN), xpath="//nothing")
    assert hit.tier == "text"


# ---- whole-word containment, ambiguity, scroll into view, switching tiers off ---------------
TODOS = UITree(source="dom", nodes=[
    node(0, "footer", rect=(0, 700, 600, 40)),
    node(1, "button", 0, (400, 705, 180, 30), clickable=True, text="Clear completed (3)"),
    node(2, "span", 0, (10, 705, 120, 30), text="2 items left"),
    node(3, "a", 0, (150, 705, 60, 30), clickable=True, text="Active"),
    node(4, "a", 0, (220, 705, 60, 30), clickable=True, text="Inactive"),
    node(5, "button", 0, (300, 705, 90, 30), clickable=True, name="Delete item Milk"),
    node(6, "button", 0, (300, 745, 90, 30), clickable=True, name="Delete item Eggs"),
])


def test_a_unique_element_containing_the_words_is_found():
    hit = default_chain().locate("clear  Completed", FakeDevice(TODOS))
    assert hit.tier == "text" and (hit.rect.x, hit.rect.y) == (400, 705)


def test_containment_is_by_whole_words_and_exact_wins():
    # "Active" is also inside "Inactive" as letters but not as a word; the exact one wins anyway
    assert default_chain().locate("active", FakeDevice(TODOS)).rect.x == 150
    with pytest.raises((LocateError, NeedsModel)):
        default_chain().locate("complete", FakeDevice(TODOS))     # not a whole word


def test_several_elements_containing_the_words_are_a_miss_naming_them():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Delete item", FakeDevice(TODOS))
    assert "ambiguous" in str(info.value)
    assert sorted(c.split('"')[1] for c in info.value.candidates) == [
        "Delete item Eggs", "Delete item Milk"]


def test_an_off_screen_match_is_scrolled_into_view_and_read_again():
    top = UITree(source="dom", nodes=[node(0, "a", rect=(0, 1500, 80, 20), text="Terms",
                                          clickable=True, visible=False)])
    scrolled = UITree(source="dom", nodes=[node(0, "a", rect=(0, 390, 80, 20), text="Terms",
                                               clickable=True)])
    dev = FakeDevice(screens={"top": top, "scrolled": scrolled}, scrolls={"top": "scrolled"})
    hit = default_chain().locate("terms", dev)
    assert hit.tier == "text" and hit.rect.y == 390 and ("scroll_into_view", 0) in dev.actions


def test_scrolling_stops_after_the_cap_and_says_so():
    dev = FakeDevice(LOGIN)          # the page never moves: "Terms" stays below the fold
    with pytest.raises(LocateError) as info:
        default_chain().locate("Terms", dev)
    assert "off-screen" in info.value.candidates[0]
    assert sum(1 for a in dev.actions if a[0] == "scroll_into_view") == 1   # no movement: stop
    # the message says the element is there but could not be shown, not that it is the
    # "closest on screen" to itself
    assert str(info.value).splitlines()[0] == (
        'no element on screen matches "Terms": "Terms" (p) is off-screen and did not come '
        'into view after 1 scroll(s)')


def test_a_tier_switched_off_is_not_tried():
    dev = FakeDevice(LOGIN, xpaths={"//button": [Rect(x=1, y=2, width=3, height=4)]})
    tiers = []
    with pytest.raises((LocateError, NeedsModel)):
        default_chain(lambda t, ok: tiers.append(t), off={"text"}).locate(
            "Sign in", FakeDevice(LOGIN))
    assert tiers == ["xpath"]
    assert default_chain(off={"xpath"}).locate("Sign in", dev, xpath="//button").tier == "text"
    with pytest.raises(ValueError, match="unknown locate tier"):
        default_chain(off={"ocr-typo"})


def test_swipe_toward_scrolls_content_toward_the_edge_the_element_is_beyond():
    from farm.devices.base import swipe_toward
    screen = (1080, 2400)
    below, above = Rect(x=0, y=2400, width=500, height=0), Rect(x=0, y=0, width=500, height=0)
    x1, y1, x2, y2 = swipe_toward(below, screen)
    assert y1 > y2                               # finger moves up: content comes up
    x1, y1, x2, y2 = swipe_toward(above, screen)
    assert y1 < y2
    assert swipe_toward(Rect(x=10, y=10, width=5, height=5), screen) is None


def test_ocr_lines_match_without_spaces_and_ambiguity_is_named():
    from farm.agent.ocr import OcrLine, match_lines
    lines = [OcrLine("Clearcompleted(3)", Rect(x=100, y=50, width=170, height=20), 0.9),
             OcrLine("Buy now", Rect(x=10, y=200, width=70, height=20), 0.9),
             OcrLine("Buy later", Rect(x=10, y=300, width=90, height=20), 0.9)]
    rects, how = match_lines("Clear completed", lines)
    assert how == "words" and len(rects) == 1 and rects[0].x == 100 and rects[0].width < 170
    assert match_lines("buy now", lines) == ([lines[1].rect], "exact")
    assert len(match_lines("Buy", lines)[0]) == 2


def test_without_rapidocr_the_ocr_tier_misses_and_the_chain_goes_on(monkeypatch):
    import sys

    import farm.agent.ocr as ocr
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)   # import fails
    assert ocr.engine() is None and ocr.read_lines(b"not even a png") == []
    chain = LocatorChain([ocr.OcrTier(), TextMatchTier()])
    assert chain.locate("Sign in", FakeDevice(LOGIN)).tier == "text"


def test_tiers_are_switched_off_by_setting():
    from pydantic import ValidationError

    from farm.config import Settings
    assert Settings(locate_off="ocr, ai").locate_off == ["ocr", "ai"]
    with pytest.raises(ValidationError, match="unknown locate tier orc"):
        Settings(locate_off="orc")


def test_with_a_model_tier_to_come_an_ambiguous_text_falls_through_to_it():
    class ModelTier:            # stands in for the AI locate tier: it can tell them apart
        name = "ai"

        def locate(self, prompt, ctx):
            return LocateHit(Rect(x=100, y=200, width=80, height=20), self.name, prompt)

    seen = []
    chain = LocatorChain([TextMatchTier(), ModelTier()], has_model_tier=True,
                         on_attempt=lambda tier, ok: seen.append((tier, ok)))
    hit = chain.locate("Help", FakeDevice(LOGIN))
    assert hit.tier == "ai" and seen == [("text", False), ("ai", True)]


def test_ocr_runs_only_where_the_tree_cannot_read_the_screen():
    """OCR costs seconds a frame: a miss on a screen whose tree reads fine must not pay it,
    while a canvas, a WebView, a text-less tree or no tree at all still gets it."""
    from farm.agent.locator import LocateContext
    from farm.agent.ocr import OcrTier, needs_pixels
    readable = UITree(source="dom", nodes=[node(1, "button", text="Sign in"),
                                           node(2, "img", name="logo")])
    with_canvas = UITree(source="dom", nodes=[*readable.nodes, node(3, "canvas")])
    webview = UITree(source="uiautomator", nodes=[node(1, "android.widget.TextView", text="Hi"),
                                                  node(2, "android.webkit.WebView")])
    textless = UITree(source="wda", nodes=[node(1, "XCUIElementTypeOther")])
    assert not needs_pixels(readable)
    assert needs_pixels(with_canvas) and needs_pixels(webview) and needs_pixels(textless)
    assert needs_pixels(None)
    hidden_canvas = UITree(source="dom", nodes=[*readable.nodes,
                                                node(3, "canvas", visible=False)])
    assert not needs_pixels(hidden_canvas)

    def no_capture() -> bytes:
        raise AssertionError("OCR took a screenshot of a screen its tree reads")
    ctx = LocateContext(device=FakeDevice(LOGIN), _tree=readable, _fetched=True)
    assert OcrTier(no_capture).locate("Checkout", ctx) is None
    assert not OcrTier(no_capture).applies("Checkout", ctx)


def test_ocr_text_is_compared_after_nfkc_so_a_full_width_comma_is_a_comma():
    """RapidOCR reads a small iPhone screenshot's "," as "，" (U+FF0C) at random: without NFKC
    `assertNoText: Welcome back, demo` passed with the text on screen."""
    from farm.agent.ocr import OcrLine, match_lines, squash
    assert squash("Welcome back, demo") in squash("Welcomeback，demo")
    assert squash("ＡＢＣ１") == squash("abc1")
    line = OcrLine("Welcomeback，demo", Rect(x=10, y=50, width=170, height=20), 0.9)
    assert match_lines("Welcome back, demo", [line]) == ([line.rect], "exact")


# A phone's form: the label is its own text node beside the field (an empty EditText shows its
# hint as its text), so both match "Search products" exactly.
PHONE_FORM = UITree(source="uiautomator", nodes=[
    node(0, "android.widget.FrameLayout", rect=(0, 0, 1080, 2400)),
    node(1, "android.widget.TextView", 0, (40, 348, 1000, 50), text="Search products"),
    node(2, "android.widget.EditText", 0, (40, 412, 1000, 100), text="Search products",
         editable=True, clickable=True),
])


def test_a_step_that_types_takes_the_one_text_field_among_tied_matches():
    """`aiInput: Search products` was "ambiguous" on phones (label TextView and EditText)
    where the web, whose label and field are one target, passes."""
    hit = default_chain().locate("Search products", FakeDevice(PHONE_FORM), editable=True)
    assert hit.rect.y == 412
    with pytest.raises(LocateError, match="ambiguous"):     # a tap is still no guess
        default_chain().locate("Search products", FakeDevice(PHONE_FORM))


def test_the_text_field_wins_a_tie_only_when_it_is_the_only_one():
    two = PHONE_FORM.model_copy(update={"nodes": [*PHONE_FORM.nodes, node(
        3, "android.widget.EditText", 0, (40, 600, 1000, 100), text="Search products",
        editable=True)]})
    with pytest.raises(LocateError, match="ambiguous"):
        default_chain().locate("Search products", FakeDevice(two), editable=True)


class UnreadableTree(FakeDevice):
    """A phone whose uiautomator dump keeps failing (an animating app): no tree, no XPath."""
    last_observation = "empty-tree"
    tree_problem = "uiautomator dump: ERROR: could not get idle state."

    def hierarchy(self):
        return None

    def query_xpath(self, xpath):
        return []


class TwoOnScreen:
    """Stands in for the OCR tier reading the prompt twice on the screenshot."""
    name = "ocr"

    def locate(self, prompt, ctx):
        from farm.agent.locator import ambiguous
        raise ambiguous(prompt, "exact", ["text on screen at [39, 350, 302, 37]",
                                          "text on screen at [71, 441, 306, 40]"])


def test_an_xpath_on_an_unreadable_tree_says_so_instead_of_a_bare_ambiguity():
    """It read '"Search products" is ambiguous: 2 elements match', never naming the XPath or
    the tree it could not be evaluated on: a locator bug, to the user."""
    from farm.agent.locator import XPathTier
    xpath = '//*[@resource-id="com.farm.demo.shop:id/search-input"]'
    chain = LocatorChain([XPathTier(), TextMatchTier(), TwoOnScreen()])
    with pytest.raises(LocateError) as info:
        chain.locate("Search products", UnreadableTree(LOGIN), xpath=xpath)
    said = str(info.value)
    assert said.startswith("the UI tree could not be read (uiautomator dump: ERROR: could not "
                           f"get idle state.), so XPath {xpath} could not be used"), said
    assert 'the ocr tier, tried instead, found: "Search products" is ambiguous: 2 elements' \
        in said
    with pytest.raises(LocateError, match="no element matches XPath .* could not be read"):
        LocatorChain([XPathTier(), TextMatchTier()]).locate("", UnreadableTree(LOGIN),
                                                            xpath=xpath)


def test_a_new_read_of_the_page_is_matched_afresh_not_from_the_last_trees_strings():
    # the text tier normalises a tree's strings once and keeps them while the device reads
    # the same tree (an unchanged page); a new read (a new tree, whatever it holds) is not
    # answered from the last one's
    from farm.agent.locator import find_text

    def tree(*texts: str) -> UITree:
        return UITree(source="dom", nodes=[
            UINode(id=i, role="button", text=t, rect=Rect(x=0, y=40 * i, width=90, height=30),
                   clickable=True) for i, t in enumerate(texts)])

    before = tree("Pay now", "Cancel")
    assert [n.text for n in find_text("pay now", before)[0]] == ["Pay now"]
    assert find_text("Cancel order", before) == ([], "")
    after = tree("Pay later", "Cancel order")
    assert [n.text for n in find_text("Cancel order", after)[0]] == ["Cancel order"]
    assert find_text("pay now", after) == ([], "")
    assert [n.text for n in find_text("PAY NOW:", before)[0]] == ["Pay now"]


def test_normalising_collapses_every_kind_of_whitespace_and_folds_width_and_case():
    from farm.agent.locator import normalise

    assert normalise("  Sign\u00a0in\u3000 now \t\n") == "sign in now"
    assert normalise("Ｅｍａｉｌ ａｄｄｒｅｓｓ *") == "email address"
    assert normalise("Straße:") == "strasse"
    assert normalise("ﬁle\u2028name") == "file name"


# ---- a phone's dump lists only what shows: the text tier swipes through the list ------------
class ListPhone(FakeDevice):
    """A phone whose dump lists only the rows on screen: ``pages`` are what the list shows,
    top first, and a search swipe moves it one page (none past either end)."""

    def __init__(self, pages: list[UITree], at: int = 0) -> None:
        super().__init__(screens={str(i): p for i, p in enumerate(pages)}, start=str(at),
                         platform="android", size=(400, 800))

    def swipe_to_find(self, forward: bool) -> bool:
        self.actions.append(("swipe_to_find", forward))
        self.screen = str(max(0, min(len(self.screens) - 1,
                                     int(self.screen) + (1 if forward else -1))))
        return True


def page(*rows):
    return UITree(source="uiautomator", nodes=[node(0, "android.view.View", rect=(0, 0, 400, 800))]
                  + [node(i + 1, "android.widget.TextView", 0, (0, y, 400, h), text=t)
                     for i, (t, y, h) in enumerate(rows)])


NOTES = [page(("Note 1", 100, 50), ("Note 2", 400, 50)),
         page(("Note 3", 100, 50), ("Note 4", 400, 50)),
         page(("Note 5", 100, 50), ("Note 6", 400, 50))]


def test_a_row_the_dump_does_not_hold_is_found_by_swiping_down_the_list():
    dev = ListPhone(NOTES)
    hit = default_chain().locate("Note 6", dev)
    assert hit.tier == "text" and hit.rect.y == 400 and "after 2 swipe(s)" in hit.description
    assert [a for a in dev.actions if a[0] == "swipe_to_find"] == [("swipe_to_find", True)] * 2


def test_at_the_list_s_end_the_search_turns_back_up():
    dev = ListPhone(NOTES, at=1)
    assert default_chain().locate("Note 1", dev).rect.y == 100
    assert [a[1] for a in dev.actions if a[0] == "swipe_to_find"] == [True, True, False, False]


def test_a_row_nowhere_in_the_list_fails_saying_how_many_swipes_looked():
    dev = ListPhone(NOTES)
    with pytest.raises(LocateError) as info:
        default_chain().locate("Note 9", dev)
    # down to the end (a swipe that moved nothing), back up to the start (another)
    assert str(info.value).startswith('no element matches "Note 9" (swiped 6 times through the '
                                      'scrolling list and did not find it)')
    with pytest.raises(LocateError) as info:
        LocatorChain([TextMatchTier(max_scrolls=2)]).locate("Note 9", ListPhone(NOTES))
    assert "(swiped 2 times" in str(info.value)


def test_a_row_the_swipe_left_cut_by_the_screen_s_edge_is_left_to_the_tap_s_check():
    """A sliver on the screen's edge is swiped in by the check a located tap goes through
    (`phone_edges.tap_point`, once: test_edge_strip_search), not by one more search swipe."""
    cut = page(("Note 3", 100, 50), ("Note 4", 780, 20))        # a sliver at the bottom
    dev = ListPhone([NOTES[0], cut, NOTES[1]])
    hit = default_chain().locate("Note 4", dev)
    assert hit.rect.y == 780 and "after 1 swipe(s)" in hit.description


def test_a_row_cut_by_the_list_s_edge_above_the_screen_s_is_brought_all_in():
    """A list ending above a bottom bar: its edge, not the screen's, cuts the row."""
    def listed(*rows):
        return UITree(source="uiautomator", nodes=[
            node(0, "android.view.View", rect=(0, 0, 400, 800)),
            node(1, "android.widget.ListView", 0, (0, 0, 400, 700))]
            + [node(i + 2, "android.widget.TextView", 1, (0, y, 400, h), text=t)
               for i, (t, y, h) in enumerate(rows)])
    dev = ListPhone([listed(("Note 1", 100, 50)), listed(("Note 4", 690, 10)),
                     listed(("Note 4", 400, 50))])
    hit = default_chain().locate("Note 4", dev)
    assert hit.rect.y == 400 and "after 2 swipe(s)" in hit.description


def test_a_tree_that_holds_every_element_is_not_swiped_through():
    dev = FakeDevice(NOTES[0], platform="android")          # no swipe_to_find: web, iOS
    with pytest.raises(LocateError):
        default_chain().locate("Note 6", dev)
    assert not any(a[0].startswith("swipe") for a in dev.actions)


class AskedModel:
    """A model tier that finds whatever it is asked about (what it was asked: ``asked``)."""
    name = "ai"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def locate(self, prompt, ctx):
        self.asked.append(prompt)
        return LocateHit(Rect(x=1, y=2, width=3, height=4), self.name, prompt)


def test_with_a_model_a_row_like_those_shown_is_still_swiped_to_not_asked_about():
    model = AskedModel()
    dev = ListPhone(NOTES)
    hit = LocatorChain([TextMatchTier(), model], has_model_tier=True).locate("Note 6", dev)
    assert hit.tier == "text" and model.asked == []


def test_with_a_model_a_described_target_is_the_model_s_on_the_screen_as_it_was():
    model = AskedModel()
    dev = ListPhone(NOTES, at=1)
    hit = LocatorChain([TextMatchTier(), model], has_model_tier=True).locate(
        "the star beside the second note", dev)
    assert hit.tier == "ai" and model.asked == ["the star beside the second note"]
    assert not any(a[0] == "swipe_to_find" for a in dev.actions) and dev.screen == "1"


def test_typographic_quotes_match_the_ascii_ones_a_suite_is_typed_with():
    """iOS writes "Don’t Allow" (U+2019) on its permission alert and many apps curl their
    quotes; NFKC keeps them, so `aiTap: Don't Allow` missed the button and `assertNoText:
    Don't Allow` passed with it on screen."""
    from farm.agent.api import Agent
    from farm.agent.ocr import squash
    alert = UITree(source="wda", nodes=[
        node(1, "XCUIElementTypeButton", 0, (40, 600, 300, 80), text="Don\u2019t Allow"),
        node(2, "XCUIElementTypeStaticText", 0, (40, 300, 600, 60),
             text="\u201cShop\u201d Would Like to Send You Notifications")])
    hit = default_chain().locate("Don't Allow", FakeDevice(alert))
    assert hit.rect.y == 600
    agent = Agent(FakeDevice(alert))
    assert agent.shows("Don't Allow")
    assert agent.shows('"Shop" Would Like')
    assert squash("Don't Allow") == squash("Don\u2019t Allow")
