"""An `xpath:` that cannot be an XPath is a suite error when the suite loads (exit 4, its
file:line:col), not a failure after the browser started ("invalid XPath … is not a valid XPath
expression"); every valid XPath 1.0 a browser takes still loads. (The VALID and INVALID lists
were checked against Chromium's document.evaluate when this was written.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.suite.xpath_syntax import xpath_problem
from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

HEAD = "name: x\nweb:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"

VALID = [
    "//button[@id='login']", '//*[@data-x="a[b]"]', "//a[contains(text(), 'Sign (in)')]",
    "(//button)[2]", "//div[@class='x']//span | //p",
    "//li[position() > 1 and position() < last()]", "/html/body/div[1]", "/", ".//a", "..",
    "ancestor::div[1]/following-sibling::*[1]", '//input[@type="text" and not(@disabled)]',
    '//*[text()="It\'s"]', "//*[normalize-space(.)='a ] b']", "concat('a', \"b\")",
    "//a[@href][1]", "//android.widget.Button[@text='OK']",
    '//XCUIElementTypeButton[@name="Log in"]', "count(//a) = 2", "//div[@x = '[' ]",
    "//a[starts-with(@href, '/')]", "//*[local-name()='svg']", "//div[./span]", "//a/@href",
    "id('main')//a", "//div[ (@a or @b) ]", "//a[. = '/']", "//a[text()=')(][']",
    "//section[h2='Cart']/descendant-or-self::node()/button", "(//div | //span)[@title]",
    "//tr[td[1]='x']/td[2]", "//*[translate(text(),'ABC','abc')='x']", "self::node()",
    # a variable's value is known on the device only: the reference is one operand
    "//*[@id='${ID}']", "//*[@id=${ID}]", "//input[@value='${USER:-a[b}']",
]

INVALID = {
    "//button[@id='nope'": 'the [ after "//button" is never closed',
    "//button[@id='nope]": "the quote ' after \"//button[@id=\" is never closed",
    "//button[@id=\"nope']": 'the quote " after "//button[@id=" is never closed',
    "//a[contains(text(), 'x']": 'the ( after "//a[contains" is closed by a ]',
    "//a]": 'the ] after "//a" closes nothing',
    "(//a": "the ( at its start is never closed",
    "//a)": 'the ) after "//a" closes nothing',
    "//a[ ]": 'the predicate [] after "//a" is empty',
    "//div[@id='a']/": "it ends with /: a step is missing after it",
    "//": "it ends with /: a step is missing after it",
}


@pytest.mark.parametrize("xpath", VALID)
def test_a_valid_xpath_is_taken(xpath):
    assert xpath_problem(xpath) is None


@pytest.mark.parametrize("xpath, said", INVALID.items())
def test_what_no_xpath_can_be_is_said(xpath, said):
    assert xpath_problem(xpath) == said


def _load(tmp_path: Path, monkeypatch, capsys, flow: str):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(HEAD + flow)
    monkeypatch.chdir(tmp_path)
    return run_main(monkeypatch, capsys, "run", "s", "--collect-only")


def test_an_unclosed_bracket_stops_the_run_before_any_browser(tmp_path, monkeypatch, capsys):
    """The user's step, and the same mistake in a locate map: both said, at their lines."""
    code, out, err = _load(tmp_path, monkeypatch, capsys,
                           "      - aiTap: Log in\n        xpath: //button[@id='nope'\n"
                           "      - aiTap:\n          prompt: Log in\n"
                           "          xpath: \"//a[contains(text(), 'x']\"\n")
    assert code == 4 and "collected" not in out
    assert problems(err)[1:] == [
        "  s/c.yaml:8:16: aiTap xpath: invalid XPath \"//button[@id='nope'\": the [ after "
        '"//button" is never closed',
        "  s/c.yaml:11:18: aiTap xpath: invalid XPath \"//a[contains(text(), 'x']\": the ( "
        'after "//a[contains" is closed by a ]']


def test_a_valid_xpath_with_brackets_in_its_quotes_loads(tmp_path, monkeypatch, capsys):
    code, out, err = _load(tmp_path, monkeypatch, capsys,
                           "      - aiTap: Log in\n        xpath: \"//*[@title='a ] (b']\"\n")
    assert code == 0, err
    assert "s/c" in out
