"""A cached target in an Android list whose rows look alike (every row's button is
"Add to cart" with the same resource-id: only its place in the list names it, a positional
XPath), and the list reordered overnight (a new product on top, a sort by popularity): the
XPath now selects another row's button, of the same class and text. The locate cache must
not tap it (the Green Mug bought for "the Add to cart button of the Blue Mug"): the entry
keeps what the row around the element showed, the stale entry is re-located by the next
tier and rewritten. A row that still shows what it showed is a hit."""

from __future__ import annotations

from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UITree
from farm.devices.fake import FakeDevice
from farm.devices.native_tree import parse_uiautomator, query_xml

PROMPT = "the Add to cart button of the Blue Mug"
NS = Namespace("shop/buy", "android")


def _row(i: int, title: str, price: str) -> str:
    top = 200 * i
    return (f'<node class="android.widget.LinearLayout" bounds="[0,{top}][1080,{top + 200}]">'
            f'<node class="android.widget.TextView" resource-id="com.shop:id/title" '
            f'text="{title}" bounds="[20,{top + 20}][600,{top + 100}]"/>'
            f'<node class="android.widget.TextView" resource-id="com.shop:id/price" '
            f'text="{price}" bounds="[20,{top + 100}][600,{top + 180}]"/>'
            f'<node class="android.widget.Button" resource-id="com.shop:id/add" '
            f'text="Add to cart" clickable="true" bounds="[700,{top + 50}][1000,{top + 150}]"/>'
            '</node>')


def _screen(*rows: tuple[str, str]) -> str:
    return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" '
            'bounds="[0,0][1080,2000]"><node class="androidx.recyclerview.widget.RecyclerView" '
            'resource-id="com.shop:id/list" bounds="[0,0][1080,2000]">'
            + "".join(_row(i, *row) for i, row in enumerate(rows)) + "</node></node></hierarchy>")


class Phone(FakeDevice):
    """A fake phone showing ``xml``, whose XPaths are evaluated as the Android driver does."""

    def __init__(self, xml: str) -> None:
        self.xml = xml
        super().__init__(parse_uiautomator(xml, 1080, 2000), platform="android",
                         size=(1080, 2000))

    def query_xpath(self, xpath: str) -> list[Rect]:
        return query_xml(self.xml, xpath, self.tree)


def _button(tree: UITree, title: str) -> Rect:
    row = next(n for n in tree.nodes if n.text == title).parent
    return next(n.rect for n in tree.nodes if n.parent == row and n.text == "Add to cart")


def _found_by_model(store: MemoryStore, phone: Phone) -> dict:
    """Night 1: the model found the Blue Mug's button; the entry the cache stored."""
    cache = CaseCache(store, NS, "read-write", package="com.shop")
    cache.begin_step()
    LocateCacheTier(cache).remember(PROMPT, LocateHit(_button(phone.tree, "Blue Mug"),
                                                      "ai"), LocateContext(phone))
    assert cache.end_step().written == 1
    [(_, entry)] = store.items()
    return entry


def _next_night(store: MemoryStore, phone: Phone) -> tuple[LocateHit | None, CaseCache]:
    cache = CaseCache(store, NS, "read-write", package="com.shop")
    cache.begin_step()
    return LocateCacheTier(cache).locate(PROMPT, LocateContext(phone)), cache


def test_a_reordered_list_does_not_tap_another_rows_button():
    store = MemoryStore()
    entry = _found_by_model(store, Phone(_screen(("Green Mug", "$12.50"),
                                                 ("Blue Mug", "$12.50"))))
    assert entry["xpaths"][0].startswith("/node[1]/")          # only its place names it
    assert entry["around"] == ["blue mug", "$12.50"]
    swapped = Phone(_screen(("Blue Mug", "$12.50"), ("Green Mug", "$12.50")))
    hit, cache = _next_night(store, swapped)
    assert hit is None, f"tapped {hit} for {PROMPT!r}: the Green Mug's button"
    assert cache.end_step().stale == 1


def test_the_same_row_in_the_same_place_is_still_a_hit():
    store = MemoryStore()
    _found_by_model(store, Phone(_screen(("Green Mug", "$12.50"), ("Blue Mug", "$12.50"))))
    again = Phone(_screen(("Green Mug", "$11.00"), ("Blue Mug", "$12.50")))
    hit, cache = _next_night(store, again)
    assert hit is not None and hit.tier == "cache"
    assert hit.rect == _button(again.tree, "Blue Mug")
    assert cache.end_step().hits == 1


def test_an_entry_by_place_that_kept_nothing_around_it_is_not_trusted():
    """An entry stored before farm kept what was around an element: one re-locate, then
    the entry is rewritten with it."""
    store = MemoryStore()
    phone = Phone(_screen(("Green Mug", "$12.50"), ("Blue Mug", "$12.50")))
    entry = _found_by_model(store, phone)
    [(key, _)] = store.items()
    store.put(key, {k: v for k, v in entry.items() if k != "around"})
    hit, cache = _next_night(store, phone)
    assert hit is None and cache.end_step().stale == 1
