"""Variables: source precedence, ${...} templates, secret masking."""

from __future__ import annotations

import base64
import html
import json
import re
from urllib.parse import quote, quote_plus

import markupsafe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from farm.errors import ConfigError, UserError
from farm.suite.vars import UndefinedVariable, Variables, malformed, references


def test_precedence_provided_env_secrets_dir_defaults(tmp_path):
    (tmp_path / "A").write_text("from-dir\n")
    (tmp_path / "B").write_text("from-dir\n")
    (tmp_path / "C").write_text("from-dir\r\n\n")
    (tmp_path / "..data").mkdir()          # Kubernetes mount internals are skipped
    (tmp_path / "not-a-name").write_text("x")
    v = Variables.from_sources(
        {"A": "default", "B": "default", "C": "default", "D": "default"},
        env={"A": "env", "B": "env"},
        secrets_dir=tmp_path,
        provided={"A": "provided"},
    )
    assert [v.get(n) for n in "ABCD"] == ["provided", "env", "from-dir", "default"]
    assert "not-a-name" not in v


def test_env_defaults_to_os_environ(monkeypatch):
    monkeypatch.setenv("FARM_VARS_TEST", "yes")
    assert Variables.from_sources({}).get("FARM_VARS_TEST") == "yes"


def test_a_value_from_the_secrets_dir_is_masked_whatever_its_name(tmp_path):
    (tmp_path / "DB_LOGIN").write_text("from-the-dir\n")
    (tmp_path / "OVERRIDDEN").write_text("dir-value\n")
    v = Variables.from_sources({}, env={"OVERRIDDEN": "plain-env-value"}, secrets_dir=tmp_path)
    assert v.mask("login from-the-dir, env plain-env-value") == "login ***, env plain-env-value"


def test_missing_secrets_dir_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="secrets dir"):
        Variables.from_sources({}, env={}, secrets_dir=tmp_path / "nope")


@pytest.mark.parametrize("template, expected", [
    ("plain text", "plain text"),
    ("${USER}", "alice"),
    ("hi ${USER}, ${USER}!", "hi alice, alice!"),
    ("${MISSING:-guest}", "guest"),
    ("${EMPTY:-fallback}", "fallback"),          # shell semantics: empty uses the default
    ("${USER:-guest}", "alice"),
    ("${MISSING:-}", ""),
    ("$${USER}", "${USER}"),                      # escape
    ("cost: $5 and $$", "cost: $5 and $$"),
    ("${not valid}", "${not valid}"),             # malformed stays literal
    ("${1A}", "${1A}"),
    ("${USER", "${USER"),
    ("${A:-${USER}}", "${A:-alice}"),             # no nesting: the outer one is malformed
])
def test_resolve(template, expected):
    assert Variables({"USER": "alice", "EMPTY": ""}).resolve(template) == expected


def test_undefined_variable_is_a_user_error():
    with pytest.raises(UndefinedVariable) as info:
        Variables({}).resolve("go to ${BASE_URL}/x")
    assert isinstance(info.value, UserError)
    assert info.value.name == "BASE_URL"
    assert "undefined variable ${BASE_URL}" in str(info.value)


def test_references_and_malformed():
    t = "a ${X} b ${Y:-d} $${Z} ${bad name} ${W}"
    assert references(t) == [("X", False, 2), ("Y", True, 9), ("W", False, 35)]
    assert Variables({}).references(t) == references(t)
    assert malformed(t) == [t.index("${bad")]
    assert malformed("${A:-${B}}") == [0]


def test_mask_longest_first_and_secret_values():
    v = Variables({"P": "pass", "Q": "password", "E": "", "U": "user"}, secrets=["P", "Q", "E"])
    assert v.secret_values == ("password", "pass")
    assert v.mask("user password pass") == "user *** ***"
    assert Variables({"U": "x"}).mask("x") == "x"  # no secrets: unchanged


def test_mask_repeats_until_no_secret_is_left():
    v = Variables({"S": "a*"}, secrets=["S"])
    assert "a*" not in v.mask("aa*")


def test_with_values_overrides():
    v = Variables({"A": "1"}, secrets=["B"]).with_values({"A": "2", "B": "s3cret"})
    assert v.get("A") == "2"
    assert v.mask("s3cret") == "***"


NAMES = ["A", "B", "PW", "TOKEN"]
_value = st.text(alphabet="ab*$ {}-x", min_size=0, max_size=8)
_segment = st.one_of(
    st.text(alphabet="ab*$ x-:", max_size=6),            # literal text (no braces: never a ref)
    st.sampled_from(NAMES).map(lambda n: "${%s}" % n),
    # defaults: no "$"/"{" so a default never forms a reference of its own
    st.tuples(st.sampled_from(NAMES + ["UNSET"]), st.text(alphabet="ab*- x", max_size=6))
      .map(lambda t: "${%s:-%s}" % t),
    st.just("$${"),
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.fixed_dictionaries({n: _value for n in NAMES}),
    secrets=st.sets(st.sampled_from(NAMES)),
    segments=st.lists(_segment, max_size=8),
)
def test_masked_resolution_never_contains_a_secret(values, secrets, segments):
    v = Variables(values, secrets)
    out = v.mask(v.resolve("".join(segments)))
    for secret in v.secret_values:
        if secret.replace("*", "").strip():   # one of '*' (and whitespace) alone is ignored
            assert secret not in out


# ---- encoded secrets: what pages, browsers and writers turn a secret into ---------------------

SECRET = 'Tok en"&=/+?<x>\\ü9Zq'


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), text)


ENCODERS = {
    "quote": lambda s: quote(s, safe=""),
    "quote keeps /": quote,
    "quote_plus": quote_plus,
    "lower-case hex": lambda s: _lower_hex(quote(s, safe="")),
    # what Chromium showed in its navigation error: only some characters of a query encoded
    "browser url": lambda s: s.replace(" ", "%20").replace('"', "%22").replace("<", "%3C")
                              .replace(">", "%3E").replace("ü", "%C3%BC"),
    "json": json.dumps,
    "json utf-8": lambda s: json.dumps(s, ensure_ascii=False),
    "json twice": lambda s: json.dumps(json.dumps(s)),
    "json in html": lambda s: html.escape(json.dumps(s)),
    "html": html.escape,
    "jinja2": lambda s: str(markupsafe.escape(s)),
    "html numeric": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64 unpadded": lambda s: base64.b64encode(s.encode()).decode().rstrip("="),
    "base64url": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "btoa (latin-1)": lambda s: base64.b64encode(s.encode("latin-1")).decode(),
    "base64 in a url": lambda s: quote(base64.b64encode(s.encode()).decode(), safe=""),
}


@pytest.mark.parametrize("encode", ENCODERS.values(), ids=ENCODERS)
def test_mask_hides_the_common_encodings_of_a_secret(encode):
    v = Variables({"T": SECRET}, secrets=["T"])
    quotes = encode("")          # what the encoding adds around any value: "", \"\" ...
    half = len(quotes) // 2
    assert v.mask(f"before {encode(SECRET)} after") == \
        f"before {quotes[:half]}***{quotes[half:]} after"


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_mask_hides_a_secret_inside_a_larger_base64_blob(offset):
    secret = "correct horse battery staple"
    v = Variables({"T": secret}, secrets=["T"])
    before, after = b"p" * (3 + offset), b"suffix!"
    blob = base64.b64encode(before + secret.encode() + after).decode()
    masked = v.mask(blob)
    assert "***" in masked
    # What is left is the blob's own bytes plus at most one shared character at each end.
    kept = masked.replace("***", "")
    assert len(kept) <= -(-len(before) * 4 // 3) + -(-len(after) * 4 // 3) + 4, masked


def test_mask_leaves_text_that_only_looks_like_a_secret():
    v = Variables({"T": "hunter2"}, secrets=["T"])
    text = "hunter3 Hunter2 hunter%33 aHVudGVy %68unter"
    assert v.mask(text) == text
    assert v.mask("%68unter2 aHVudGVyMg== &#104;unter2") == "*** *** ***"


@settings(max_examples=200, deadline=None)
@given(secret=st.text(min_size=1, max_size=12).filter(lambda s: s.replace("*", "").strip()),
       encoder=st.sampled_from(sorted(ENCODERS)))
def test_no_encoding_of_any_secret_survives_masking(secret, encoder):
    try:
        encoded = ENCODERS[encoder](secret)
    except UnicodeEncodeError:   # btoa only takes Latin-1
        return
    v = Variables({"T": secret}, secrets=["T"])
    assert encoded.strip('"') not in v.mask(f"<{encoded}>")


def test_log_tracebacks_are_masked_too(tmp_path):
    """log.exception() carries page text and values in its traceback, not in its message."""
    import logging
    from farm.run_log import MaskFilter
    record = None
    try:
        raise ValueError("page said hunter22")
    except ValueError:
        import sys
        record = logging.LogRecord("farm", logging.ERROR, __file__, 1, "step %s failed",
                                   ("login",), sys.exc_info())
    assert MaskFilter(lambda text: text.replace("hunter22", "***")).filter(record)
    out = logging.Formatter().format(record)
    assert "hunter22" not in out and "page said ***" in out and "step login failed" in out


def test_a_vars_value_takes_the_values_it_refers_to():
    v = Variables.from_sources(
        {"BASE": "${HOST}/index.html", "PAGE": "${BASE}?q=${Q:-mug}", "LITERAL": "$${HOST}",
         "KEPT": "${HOST}"},
        env={"HOST": "http://127.0.0.1:8000", "KEPT": "${HOST} from the environment"})
    assert v.resolve("open ${PAGE}") == "open http://127.0.0.1:8000/index.html?q=mug"
    assert v.get("LITERAL") == "${HOST}"                        # $${ is a literal ${
    assert v.get("KEPT") == "${HOST} from the environment"      # only vars: are templates


def test_a_vars_value_made_of_a_secret_is_masked_where_it_shows():
    v = Variables.from_sources({"LOGIN_URL": "https://demo:${SHOP_PASS}@shop.test/"},
                               env={"SHOP_PASS": "hunter2-xyz"}, secrets=["SHOP_PASS"])
    url = v.resolve("${LOGIN_URL}")
    assert url == "https://demo:hunter2-xyz@shop.test/"
    assert v.mask(f"opened {url}") == "opened https://demo:***@shop.test/"
