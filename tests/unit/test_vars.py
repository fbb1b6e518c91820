"""Variables: source precedence, ${...} templates, secret masking."""

from __future__ import annotations

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
        if secret.strip("*"):        # a secret made only of '*' cannot be told from the mask
            assert secret not in out
