"""A target written as Midscene's docs write them, text plus a role noun ("Sign in button",
"the Username field"), is found by the text tier with no model.

Before, `aiTap: Sign in button` on a page whose button reads "Sign in" failed with no model
set ("no element matches "Sign in button"; the closest on screen is "Sign in" (button)"),
and passed only with one."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.agent.roles import RolePhrase, role_phrase
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel


def node(i: int, role: str, y: int, parent: int | None = None, **kw) -> UINode:
    return UINode(id=i, role=role, parent=parent,
                  rect=Rect(x=10, y=y, width=200, height=30), **kw)


def locate(prompt: str, *nodes: UINode, source: str = "dom", **hints: object):
    device = FakeDevice(UITree(source=source, nodes=list(nodes)))
    return LocatorChain([TextMatchTier()]).locate(prompt, device, **hints)


@pytest.mark.parametrize("prompt, text, noun", [
    ("Sign in button", "Sign in", "button"),
    ("the Sign in button", "Sign in", "button"),
    ("THE sign in Button", "sign in", "button"),
    ("Username input box", "Username", "input box"),
    ("the Username field", "Username", "field"),
    ("an Email text field", "Email", "text field"),
    ("Terms checkbox", "Terms", "checkbox"),
    ("Docs link", "Docs", "link"),
    ("Search icon", "Search", "icon"),
    ("the Yes radio button", "Yes", "radio button"),
    ('the "Sign in" button', "Sign in", "button"),
    ("Search box", "Search", "box"),
])
def test_a_prompt_reads_as_text_and_a_role_noun(prompt: str, text: str, noun: str) -> None:
    assert role_phrase(prompt) == RolePhrase(text, noun)


@pytest.mark.parametrize("prompt", ["button", "the button", "Sign in", "the Sign in",
                                    "Add to cart", "buttons", "the", ""])
def test_a_prompt_without_a_role_noun_or_text_before_it_is_none(prompt: str) -> None:
    assert role_phrase(prompt) is None


HEADING = node(0, "h1", 10, text="Sign in")
FORM = node(1, "form", 60)
USER_LABEL = node(2, "label", 60, parent=1, text="Username", clickable=True)
USER = node(3, "input:text", 100, parent=1, label="Username", resource_id="username",
            placeholder="Enter your username", clickable=True, editable=True)
SIGN_IN = node(4, "button", 140, parent=1, text="Sign in", resource_id="login-button",
               clickable=True)
PAGE = (HEADING, FORM, USER_LABEL, USER, SIGN_IN)


@pytest.mark.parametrize("prompt, text", [("Sign in button", "Sign in"),
                                          ("the Sign in button", "Sign in"),
                                          ("a sign in Button", "sign in")])
def test_text_and_button_finds_the_button_not_the_heading(prompt: str, text: str) -> None:
    hit = locate(prompt, *PAGE)
    assert hit.rect == SIGN_IN.rect and hit.tier == "text"
    assert hit.notes == (f'found by text "{text}" (button)',)


@pytest.mark.parametrize("prompt", ["Username input box", "the Username field",
                                    "Username input", "username text box"])
def test_text_and_a_field_noun_finds_the_field_not_its_label(prompt: str) -> None:
    hit = locate(prompt, *PAGE)
    assert hit.rect == USER.rect
    assert len(hit.notes) == 1 and hit.notes[0].startswith('found by text "')


def test_text_inside_a_button_is_the_button() -> None:
    button = node(0, "button", 10, clickable=True)
    span = node(1, "span", 10, parent=0, text="Sign in")
    hit = locate("Sign in button", HEADING.model_copy(update={"id": 2}), button, span)
    assert hit.rect == button.rect


def test_a_submit_input_is_a_button() -> None:
    submit = node(0, "input:submit", 10, name="Sign in", clickable=True)
    assert locate("Sign in button", HEADING.model_copy(update={"id": 1}), submit).rect == \
        submit.rect


def test_the_role_must_fit_the_noun() -> None:
    """"Sign in link" on a page whose only "Sign in" is a button and a heading: no match."""
    with pytest.raises(LocateError, match='no element matches "Sign in link"'):
        locate("Sign in link", *PAGE)


def test_no_synonyms_login_button_is_not_sign_in_and_names_the_closest() -> None:
    with pytest.raises(LocateError) as err:
        locate("Login button", *PAGE)
    assert 'no element matches "Login button"' in str(err.value)
    assert 'the closest on screen is "Sign in" (button)' in str(err.value)


def test_another_text_beside_is_still_no_match() -> None:
    cart = node(0, "button", 10, text="Add to cart", clickable=True)
    with pytest.raises(LocateError, match='no element matches "Add to wishlist"; the closest '
                                          r'on screen is "Add to cart" \(button\)'):
        locate("Add to wishlist", cart)


def test_an_element_labelled_with_the_whole_prompt_wins() -> None:
    """A button that literally reads "Sign in button" is matched as it is, with no note."""
    literal = node(6, "a", 180, text="Sign in button", clickable=True)
    hit = locate("Sign in button", *PAGE, literal)
    assert hit.rect == literal.rect and hit.notes == ()


def test_two_buttons_of_that_text_are_ambiguous_and_say_so() -> None:
    other = node(6, "button", 180, text="Sign in", clickable=True)
    with pytest.raises(LocateError, match=r'"Sign in button" is ambiguous: 2 elements of '
                                          r'its role \(button\) match "Sign in"'):
        locate("Sign in button", *PAGE, other)


def test_the_words_match_applies_to_the_text_too() -> None:
    clear = node(0, "button", 10, text="Clear completed (3)", clickable=True)
    hit = locate("the Clear completed button", clear)
    assert hit.rect == clear.rect
    assert hit.notes == ('found by text "Clear completed" (button)',)


def test_android_and_ios_trees_use_their_widget_types() -> None:
    label = node(0, "android.widget.TextView", 10, text="Sign in")
    button = node(1, "android.widget.Button", 50, text="Sign in", clickable=True)
    assert locate("Sign in button", label, button, source="uiautomator").rect == button.rect
    edit = node(2, "android.widget.EditText", 90, text="Username", clickable=True,
                editable=True)
    utext = node(3, "android.widget.TextView", 130, text="Username")
    assert locate("the Username field", utext, edit, source="uiautomator").rect == edit.rect
    check = node(4, "android.widget.CheckBox", 170, text="Terms", clickable=True)
    terms = node(5, "android.widget.TextView", 210, text="Terms")
    assert locate("Terms checkbox", terms, check, source="uiautomator").rect == check.rect
    ios_label = node(0, "XCUIElementTypeStaticText", 10, name="Sign in")
    ios_button = node(1, "XCUIElementTypeButton", 50, name="Sign in", clickable=True)
    assert locate("Sign in button", ios_label, ios_button, source="wda").rect == \
        ios_button.rect
    bar = node(2, "XCUIElementTypeTabBar", 300)
    tab = node(3, "XCUIElementTypeButton", 300, parent=2, name="Home", clickable=True)
    home = node(4, "XCUIElementTypeStaticText", 10, name="Home")
    assert locate("Home tab", home, bar, tab, source="wda").rect == tab.rect


def test_deep_locate_satisfied_by_the_text_tier_says_it_was_not_used() -> None:
    hit = locate("Sign in button", *PAGE, deep_locate=True)
    assert hit.notes == ('found by text "Sign in" (button)',
                         "deepLocate (deepThink) not used: the text tier found it with no "
                         "model")
    assert locate("Sign in button", *PAGE).notes == ('found by text "Sign in" (button)',)


def test_a_cached_find_of_text_and_a_role_noun_is_still_meant() -> None:
    """The locate cache's check of a text tier's entry takes the phrase as the tier does:
    before, every run found the entry "no longer what the prompt means" and located again."""
    from farm.cache.locate import still_meant
    tree = UITree(source="dom", nodes=list(PAGE))
    entry = {"tier": "text", "element": {"role": "button", "shown": ["Sign in"]}}
    assert still_meant(entry, "the Sign in button", SIGN_IN, tree)
    assert not still_meant(entry, "Sign in link", SIGN_IN, tree)
    assert not still_meant(entry, "Login button", SIGN_IN, tree)


def test_a_role_phrase_is_not_matched_to_an_id() -> None:
    """"the gear icon" on an icon button whose id is "gear" and that shows no text stays a
    model's to find, not a guess at an id (with no model: skipped for a model, the id's
    element named as a hint)."""
    gear = node(0, "button", 10, resource_id="gear", clickable=True)
    with pytest.raises(NeedsModel, match='no zero-token match for "the gear icon" on screen; '
                                         'it describes an element'):
        locate("the gear icon", gear)


def test_a_near_miss_of_the_text_among_that_role_is_named() -> None:
    cart = node(0, "button", 10, text="Add to cart", clickable=True)
    with pytest.raises(LocateError, match='no element matches "Add to wishlist button"; the '
                                          r'closest on screen is "Add to cart" \(button\)'):
        locate("Add to wishlist button", cart)
