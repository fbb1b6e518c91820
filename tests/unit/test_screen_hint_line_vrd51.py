"""The closest text a failed text check names is the whole text of the element it is in, so
the cause it shows is readable: "Payment declined: card expired", not "Payment declined:"."""

from farm.agent.screen_hint import closest, hint
from farm.devices.base import Rect, UINode, UITree


def _tree(*texts: str) -> UITree:
    return UITree(source="dom", nodes=[UINode(id=i, role="p", text=t,
                                              rect=Rect(x=0, y=20 * i, width=300, height=20))
                                       for i, t in enumerate(texts)])


def test_the_closest_text_is_the_whole_message_not_its_first_words() -> None:
    screen = "Checkout\nPayment declined: card expired\nBack to cart"
    tree = _tree("Checkout", "Payment declined: card expired", "Back to cart")
    said = hint("Payment confirmed", screen, tree)
    assert said == '; the closest text on it is "Payment declined: card expired"'


def test_a_button_beside_others_on_one_line_is_still_the_button_alone() -> None:
    """A line of the page's text may join several elements (a nav bar): the element it is."""
    screen = "Farm Shop\nProducts  Cart (0)  Log out"
    tree = _tree("Farm Shop", "Products", "Cart (0)", "Log out")
    assert closest("Cart (1)", screen, tree=tree) == "Cart (0)"


def test_a_long_element_text_is_cut_at_words_around_the_close_part() -> None:
    words = " ".join(f"word{i}" for i in range(40))
    text = f"{words} Payment declined: card expired because the bank said no {words}"
    shown = closest("Payment confirmed", text, tree=_tree(text))
    assert shown is not None
    assert shown.startswith("…Payment declined: card expired because the bank said no")
    assert shown.endswith("…") and len(shown) <= 102
    assert all(w in text.split() for w in shown.strip("…").split())   # cut at word ends


def test_an_element_holding_a_secret_shows_only_the_close_part() -> None:
    text = "Payment declined: card 4111-1111 expired"
    shown = closest("Payment confirmed", text, lambda s: s.replace("4111-1111", "***"),
                    tree=_tree(text))
    assert shown is not None and "4111" not in shown
