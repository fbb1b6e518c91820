"""What aiInput types on a phone lands in the field character for character, and nothing of
it is ever run by the phone's shell: farm's AndroidDevice over real adbutils (`input text`
words, the ADBKeyBoard broadcast for non-ASCII) and IosDevice over real facebook-wda
(``/value``, ``/wda/keys``) against farm's simulators, whose shell expands ``$(...)``,
backticks, variables, ``~`` and globs and splits at ``;`` ``&`` ``|`` as a phone's sh does
(`farm.devices.sim.expansion`). The page shows its field's value URL-encoded, read back
through the dump / WDA source as farm reads any screen."""

from __future__ import annotations

import logging
from typing import Any, Iterator
from urllib.parse import unquote

import pytest

pytestmark = pytest.mark.integration

PKG = "com.farm.sim.values"
PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width"><title>Values</title></head><body>
<label for="f">Field</label> <textarea id="f" rows="2"></textarea>
<div id="out" style="font-size:2px;line-height:3px;word-break:break-all"><p>v0:</p></div>
<script>
const f = document.getElementById('f'), out = document.getElementById('out');
f.addEventListener('input', () => {     // (a dump holds 1000 characters of a text at most)
  const v = encodeURIComponent(f.value);
  out.replaceChildren(...Array.from({length: Math.max(1, Math.ceil(v.length / 300))},
    (_, i) => Object.assign(document.createElement('p'),
                            {textContent: `v${i}:` + v.slice(300 * i, 300 * i + 300)})));
});
</script></body></html>"""
PWNED = "/tmp/pwned"
VALUES = {
    "metacharacters": "; & | $ ( ) < > ` ' \" \\ * ? ~ # %",
    "command substitution": f"$(touch {PWNED})",
    "backticks": f"`touch {PWNED}`",
    "chained": f"a;touch {PWNED}&&touch {PWNED}||touch {PWNED}&touch {PWNED}|touch {PWNED}",
    "quotes to break out": f"x' ; touch {PWNED} ; echo '\" ; touch {PWNED} ; \"",
    "variables and home": "$HOME ${PATH} $$ $0 $1 $? ~ ~/x a~b",
    "globs": "* ? /* /d? [a-z]* .*",
    "comment": "#not a comment a#b",
    "redirections": "a<b c>d e>>f 2>&1 <&-",
    "option-like": "-d 0 --longpress",
    "percent s": "%s%%s100%s",
    "spaces": "a    b",
    "trailing space": "ends with a space ",
    "leading spaces": "   lead",
    "newline": "line one\nline two",
    "newline, not ASCII": "第一行\n第二行",
    "emoji": "ok 👍🏽 👨‍👩‍👧 🎉",
    "CJK": "张三，你好。日本語の文字",
    "RTL": "שלום עולם مرحبا بالعالم",
    "combining": "e\u0301 n\u0303 a\u0308\u0304 Z\u0351\u0323",
    "long": ("Ab1;$(x)`y`'\"\\ %s~#*?" * 100)[:2000],
    "backslash at end": "path\\",
}


@pytest.fixture(scope="module")
def app_url(tmp_path_factory) -> Iterator[str]:
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    app = tmp_path_factory.mktemp("values-app")
    (app / "index.html").write_text(PAGE, encoding="utf-8")
    with AppServer() as served:
        served.serve([AppSpec(name="values", serve=app)])
        yield served.urls[app.resolve()] + "/"


def _shown(device: Any) -> str:
    """The field's value as the page shows it (URL-encoded: every character survives)."""
    parts = {}
    for node in device.hierarchy().nodes:
        text = node.text or node.name or ""
        head, colon, rest = text.partition(":")
        if colon and head[:1] == "v" and head[1:].isdigit():
            parts[int(head[1:])] = rest
    assert sorted(parts) == list(range(len(parts))), parts
    return unquote("".join(parts[i] for i in range(len(parts))))


def _field(device: Any) -> Any:
    return next(n for n in device.hierarchy().nodes if n.editable)


@pytest.fixture(scope="module")
def android(app_url) -> Iterator[tuple[Any, Any]]:
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget
    with AndroidSimulator(1, {PKG: app_url}) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        phone.start_session(AndroidTarget(launch=PKG))
        phone.tap(*_field(phone).rect.center)
        yield sim, phone
        phone.close()


@pytest.mark.parametrize("name", list(VALUES))
def test_android_types_the_value_exactly_and_runs_none_of_it(android, name):
    sim, phone = android
    phone.clear_text()                  # as aiInput (mode replace) does
    phone.type_text(VALUES[name])
    assert _shown(phone) == VALUES[name]
    assert "No such file" in phone.shell(f"cat {PWNED}")


def test_android_an_empty_value_leaves_the_field_empty(android):
    _sim, phone = android
    phone.type_text("left over")
    phone.clear_text()
    phone.type_text("")
    assert _shown(phone) == ""


@pytest.fixture(scope="module")
def iphone(app_url) -> Iterator[Any]:
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    from farm.suite.model import IosTarget
    with IosSimulator(1, {PKG: app_url}) as sim:
        phone = IosDevice("i1", None, sim.urls[0])
        phone.open()
        phone.start_session(IosTarget(launch=PKG))
        phone.tap(*_field(phone).rect.center)
        yield phone
        phone.close()


@pytest.mark.parametrize("name", list(VALUES))
def test_ios_fills_and_types_the_value_exactly(iphone, name):
    assert iphone.fill(VALUES[name])                # aiInput: /clear, then /value
    assert _shown(iphone) == VALUES[name]
    assert iphone.fill("")
    iphone.type_text(VALUES[name])                  # mode: typeOnly, /wda/keys
    assert _shown(iphone) == VALUES[name]
    assert iphone.fill("")
    assert _shown(iphone) == ""


SECRET = "S3cretPa55 w0rd%s;$(id)"
PIECES = ("S3cretPa55", "w0rd", "S3cretPa55%sw0rd")      # as typed, and as `input text` words


def test_android_a_typed_secret_is_in_no_log_line_even_at_debug_level(android, caplog):
    """Every logger at DEBUG (what farm.log would get at that level): the command line that
    types a secret, and the error of one the phone refused, never show it."""
    from farm.errors import DeviceError
    sim, phone = android
    caplog.set_level(logging.DEBUG)
    phone.clear_text()
    phone.type_text(SECRET)
    sim.fault(0, "input_blocked", 1)
    with pytest.raises(DeviceError) as refused:
        phone.type_text(SECRET)
    said = [r.getMessage() for r in caplog.records] + [str(refused.value)]
    assert said and not [line for line in said if any(p in line for p in PIECES)]


def test_ios_a_typed_secret_is_in_no_log_line_even_at_debug_level(iphone, caplog, capsys):
    """Nor facebook-wda's request lines (printed when its DEBUG is on: farm leaves it off)."""
    caplog.set_level(logging.DEBUG)
    assert iphone.fill(SECRET)
    iphone.type_text(SECRET)
    printed = capsys.readouterr()
    said = [r.getMessage() for r in caplog.records] + [printed.out, printed.err]
    assert not [line for line in said if any(p in line for p in PIECES)]
