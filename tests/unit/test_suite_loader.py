"""Suite loading: the malformed-file corpus, Midscene forms, defaults, discovery (speed is
measured by bench/load.py, not asserted here)."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farm.errors import SuiteErrors
from farm.suite.kinds import KINDS, OPTION_PLATFORMS
from farm.config import MAX_RETRIES
from farm.suite import yamlpos
from farm.suite.loader import display_path, load_case_file, load_suites
from farm.suite.yamlpos import compose_text

HERE = Path(__file__).parent
BAD = HERE / "bad_suites"
GOOD = HERE / "good_suites"

# file (or suite dir, then the file inside it that is wrong), line, column, key phrase
BAD_CASES = [
    ("syntax_error.yaml", 6, 20, "invalid YAML"),
    ("tab_indent.yaml", 6, 1, "tab character in indentation; use spaces"),
    ("unknown_kind.yaml", 7, 9, "unknown step kind 'aiTapp' (did you mean 'aiTap'?)"),
    ("unknown_top_key.yaml", 4, 1, "unknown key 'tsks' in the case (did you mean 'tasks'?)"),
    ("unknown_web_key.yaml", 4, 3, "(did you mean 'viewportWidth'?)"),
    ("unknown_task_key.yaml", 6, 5, "(did you mean 'continueOnError'?)"),
    ("unknown_option.yaml", 8, 9, "unknown option 'xpth' for aiTap (did you mean 'xpath'?)"),
    ("missing_url.yaml", 2, 1, "web.url is missing"),
    ("missing_tasks.yaml", 2, 1, "missing required key 'tasks'"),
    ("task_missing_name.yaml", 5, 5, "task is missing 'name'"),
    ("task_missing_flow.yaml", 5, 5, "task 't' is missing 'flow'"),
    ("tasks_string.yaml", 4, 8, "expected a list of tasks"),
    ("sleep_soon.yaml", 7, 16, "expected milliseconds as a non-negative integer"),
    ("two_kinds.yaml", 8, 9, "two kinds 'aiTap' and 'aiHover'"),
    ("bare_string_step.yaml", 7, 9, "expected `aiTap: <target>`"),
    ("no_target.yaml", 2, 1, "no target section: expected one of page:, browser:, web:, android:, ios:"),
    ("two_targets.yaml", 4, 1, "two target sections (web:, android:)"),
    ("undefined_var.yaml", 8, 16, "undefined variable ${FARM_TEST_NOT_SET} (set it in the "
                                  "environment, a .env file in the working directory, vars:, "
                                  "or a secrets dir)"),
    ("empty.yaml", 1, 1, "file is empty: expected a case with web:/android:/ios: and tasks:"),
    ("comments_only.yaml", 1, 1, "file is empty"),
    ("whitespace_only.yaml", 1, 1, "file is empty"),
    ("binary_nul.yaml", 2, 9, "not a text file (contains NUL bytes)"),
    ("invalid_utf8.yaml", 3, None, "not a text file (invalid UTF-8"),
    ("top_list.yaml", 2, 1, "expected a mapping with page:/browser:/web:/android:/ios: and tasks:, got a list"),
    ("top_scalar.yaml", 2, 1, "got the string 'just some words'"),
    ("alias_bomb.yaml", 2, 4, "YAML aliases are not allowed in suite files"),
    ("duplicate_key.yaml", 5, 3, "duplicate key 'url' (first defined at line 3)"),
    ("adb_in_web.yaml", 7, 9, "runAdbShell only works in android cases"),
    ("aiinput_no_value.yaml", 7, 9, "aiInput: expected the text to type"),
    ("malformed_placeholder.yaml", 7, 24, "malformed placeholder '${user name}'"),
    ("scroll_bad_direction.yaml", 8, 20, "expected one of up, down, left, right"),
    ("two_documents.yaml", 8, 1, "more than one YAML document"),
    ("python_tag.yaml", 3, 8, "YAML tags are not allowed"),
    ("empty_flow.yaml", 6, 11, "flow is empty: expected at least one step"),
    ("wrong_type_timeout.yaml", 4, 10, "expected seconds as a number > 0, got the string"),
    ("farm_bad_timeout/farm.yaml", 2, 10, "timeout: expected seconds per case as a number > 0"),
    ("farm_missing_serve/farm.yaml", 4, 12, "directory 'no_such_dir' does not exist"),
    ("farm_is_list/farm.yaml", 2, 1, "farm.yaml: expected a mapping of suite settings"),
    ("farm_unknown_key/farm.yaml", 2, 1, "unknown key 'retry' in farm.yaml (did you mean "
                                         "'retries'?)"),
    ("file_chooser_on_android.yaml", 8, 9, "fileChooserAccept (on aiTap) only works in web "
                                           "cases (this case is for android)"),
    ("url_bad_scheme.yaml", 3, 8, "web.url: 'htp://127.0.0.1:3999/index.html': unsupported "
                                  "scheme 'htp:' (did you mean 'http'?)"),
    ("url_no_scheme.yaml", 3, 8, "web.url: '127.0.0.1:3999/index.html': no scheme, so it would "
                                 "be opened as a file path relative to the case file; write "
                                 "'http://127.0.0.1:3999/index.html'"),
    ("colon_in_value.yaml", 7, 26, "invalid YAML: mapping values are not allowed in this "
                                   "context; a value holding ': ' must be quoted: assertText: "
                                   '"Total: $25.00"'),
]


def errors_of(paths, **kw):
    with pytest.raises(SuiteErrors) as info:
        load_suites(paths, **kw)
    return info.value.errors


@pytest.mark.parametrize("name, line, column, phrase", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_suite_file(name, line, column, phrase):
    given_path = BAD / name.split("/")[0]
    errors = errors_of([given_path], env={})
    assert len(errors) == 1, [str(e) for e in errors]   # one problem per corpus file
    err = errors[0]
    assert err.file.endswith(name), err.file
    assert (err.line, err.column) == (line, column), str(err)
    assert phrase in err.message
    assert str(err).startswith(err.file)


def test_corpus_is_complete():
    on_disk = {p.name for p in BAD.iterdir() if p.name != "README.md"}
    listed = {c[0].split("/")[0] for c in BAD_CASES}
    assert on_disk == listed
    assert len(listed) >= 18


def test_all_errors_of_all_files_are_reported_at_once():
    errors = errors_of([BAD / "unknown_kind.yaml", BAD / "sleep_soon.yaml",
                        BAD / "farm_is_list"], env={})
    assert {Path(e.file).name for e in errors} == {"unknown_kind.yaml", "sleep_soon.yaml",
                                                   "farm.yaml"}


def test_several_errors_in_one_file(tmp_path):
    case = tmp_path / "many.yaml"
    case.write_text("web:\n  url: 5\n  viewportWidth: wide\n"
                    "tasks:\n  - name: t\n    continueOnError: maybe\n    flow:\n"
                    "      - aiTap: a\n        timeout: -1\n      - aiHoverr: b\n"
                    "      - sleep: -3\n")
    lines = sorted(e.line for e in errors_of([case], env={}))
    assert lines == [3, 6, 9, 10, 11]


def test_alias_bomb_is_refused_fast(tmp_path):
    # 40 levels of 10 aliases each would expand to 10**40 nodes.
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 40):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    for path in (bomb, BAD / "alias_bomb.yaml"):
        errors = errors_of([path], env={})
        assert "YAML aliases are not allowed in suite files" in errors[0].message
    assert time.perf_counter() - start < 0.5


def test_alias_without_anchor_in_same_scope_is_refused():
    _, errors = compose_text("a: *nowhere\n", "x.yaml")
    assert errors and ("alias" in errors[0].message.lower())


def test_absurd_nesting_is_refused_without_recursion_errors(tmp_path):
    deep = tmp_path / "deep.yaml"
    for depth in (300, 5000):   # ours refuses at 100 levels, libyaml's own limit is 1000
        deep.write_text("web: " + "[" * depth + "]" * depth + "\n")
        errors = errors_of([deep], env={})
        assert "nest" in errors[0].message and errors[0].line == 1


# -- good path ----------------------------------------------------------------------------------

SHOP_ENV = {"SHOP_PASSWORD": "hunter2"}


@pytest.fixture(scope="module")
def shop():
    suites = load_suites([GOOD / "shop"], env=SHOP_ENV)
    assert len(suites) == 1
    return suites[0]


def test_shop_discovery_and_ids(shop):
    # site/ is served (excluded), .drafts/ is hidden (excluded), farm.yaml is not a case.
    assert [c.id for c in shop.cases] == ["shop/checkout/pay", "shop/login"]
    assert shop.root == (GOOD / "shop").absolute()
    assert shop.defaults.apps[0].serve == (GOOD / "shop" / "site").absolute()


def test_midscene_example_steps(shop):
    login = next(c for c in shop.cases if c.id == "shop/login")
    assert login.name == "Login works" and login.platform == "web"
    assert login.web.url == "${SHOP_URL}/login.html"            # kept as a template
    assert (login.web.viewport_width, login.web.viewport_height) == (1024, 768)
    # aiActionContext is the legacy name of aiActContext: read as that
    assert login.agent == {"aiActContext": "close any cookie banner first"}
    got = [(s.kind, s.target, s.value) for s in login.steps]
    assert got == [
        ("aiInput", "the user name field", "${SHOP_USER}"),
        ("aiInput", "the password field", "${SHOP_PASSWORD}"),
        ("aiInput", "the coupon field", None),
        ("aiInput", "the age field", "42"),
        ("aiKeyboardPress", None, "Enter"),
        ("aiKeyboardPress", "the search box", "Tab"),
        ("aiKeyboardPress", "the dialog", "Escape"),
        ("aiTap", "Sign in", None),
        ("aiTap", None, None),
        ("sleep", None, "250"),
        ("waitForText", None, "Welcome, ${SHOP_USER}"),
        ("aiScroll", None, None),
        ("aiScroll", "the product list", None),
        ("aiScroll", None, None),
        ("assertNoText", None, "Error ${CODE:-500}"),
        ("javascript", None, "return `$${location.href}`"),
    ]
    steps = login.steps
    assert steps[0].options == {"mode": "replace"} and steps[2].options == {"mode": "clear"}
    assert steps[7].options == {"deepLocate": True}
    assert steps[8].xpath == '//button[@id="go"]'
    assert steps[10].timeout_ms == 5000
    assert steps[11].options == {"direction": "down", "scrollType": "scrollToBottom"}
    assert steps[12].options == {"direction": "right", "scrollType": "singleAction",
                                 "distance": 300}
    assert steps[13].options == {"direction": "down", "scrollType": "singleAction"}
    assert steps[15].options == {"name": "href"}
    assert (steps[0].line, steps[0].column) == (15, 9)
    assert [t.continue_on_error for t in login.tasks] == [False, True]
    assert not any(s.needs_model for t in login.tasks for s in t.steps)   # no model needed


def test_farm_yaml_defaults_merge(shop):
    login = next(c for c in shop.cases if c.id == "shop/login")
    pay = next(c for c in shop.cases if c.id == "shop/checkout/pay")
    assert (login.timeout, login.retries) == (120.0, 1)
    assert login.tags == ["shop", "login", "smoke"]
    assert login.secrets == ["SHOP_PASSWORD"] and login.vars == {"SHOP_USER": "alice"}
    assert (pay.timeout, pay.retries) == (30.0, 0)
    assert pay.tags == ["shop", "pay"]
    assert pay.secrets == ["SHOP_PASSWORD", "CARD"]
    assert pay.vars == {"SHOP_USER": "bob", "CARD": "4111111111111111"}
    model = next((s for t in pay.tasks for s in t.steps if s.needs_model), None)
    assert model is not None and model.kind == "aiAssert" and model.line == 15


def test_secret_must_be_provided_somewhere(tmp_path):
    errors = errors_of([GOOD / "shop"], env={})
    assert [(Path(e.file).name, e.line) for e in errors] == [("login.yaml", 17)]
    assert "${SHOP_PASSWORD}" in errors[0].message
    (tmp_path / "SHOP_PASSWORD").write_text("hunter2\n")
    assert load_suites([GOOD / "shop"], env={}, secrets_dir=tmp_path)


def test_android_and_ios_cases():
    suites = load_suites([GOOD / "mobile"], env={})
    cases = {c.id: c for s in suites for c in s.cases}
    android = cases["mobile/android_case"]
    assert android.platform == "android"
    assert (android.android.device_id, android.android.launch) == ("emulator-5554",
                                                                  "com.example.app")
    assert android.steps[0].value == "pm clear com.example.app"
    ios = cases["mobile/ios_case"]
    assert ios.platform == "ios" and ios.ios.launch == "com.example.app"
    assert ios.steps[0].value == "POST /session/test/wda/homescreen"
    assert ios.steps[0].action_params() == {"method": "POST",
                                            "endpoint": "/session/test/wda/homescreen"}


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text or "web:\n  url: https://example.com\ntasks:\n  - name: t\n"
                            "    flow:\n      - aiTap: go\n")
    return path


def test_discovery_nested_suites(tmp_path):
    top = tmp_path / "suites"
    write(top / "loose.yaml")
    write(top / "demo" / "farm.yaml", "retries: 2\n")
    write(top / "demo" / "a.yaml")
    write(top / "demo" / "deep" / "b.yml")
    write(top / "demo" / "inner" / "farm.yaml", "tags: [inner]\n")
    write(top / "demo" / "inner" / "c.yaml")
    write(top / "demo" / "node_modules" / "pkg" / "x.yaml", "junk: [")
    write(top / ".git" / "x.yaml", "junk: [")
    write(top / "demo" / ".hidden.yaml", "junk: [")
    write(top / "demo" / "notes.txt", "not yaml")
    suites = load_suites([top], env={})
    got = {s.root.relative_to(tmp_path).as_posix(): [c.id for c in s.cases] for s in suites}
    assert got == {
        "suites": ["suites/loose"],
        "suites/demo": ["demo/a", "demo/deep/b"],
        "suites/demo/inner": ["inner/c"],
    }
    inner = next(s for s in suites if s.root.name == "inner")
    assert inner.cases[0].tags == ["inner"] and inner.cases[0].retries == 0


def test_discovery_from_inside_a_suite_and_files(tmp_path):
    demo = tmp_path / "demo"
    write(demo / "farm.yaml", "timeout: 9\n")
    a = write(demo / "sub" / "a.yaml")
    write(demo / "b.yaml")
    # a subdirectory or a file belongs to the suite rooted at the nearest farm.yaml
    [suite] = load_suites([demo / "sub"], env={})
    assert suite.root == demo and [c.id for c in suite.cases] == ["demo/sub/a"]
    assert suite.cases[0].timeout == 9.0
    # the same file given twice (directly, via its directory, via farm.yaml) loads once
    suites = load_suites([a, str(a), demo / "farm.yaml", demo], env={})
    assert [c.id for s in suites for c in s.cases] == ["demo/b", "demo/sub/a"]
    case = load_case_file(a, env={})
    assert case.id == "demo/sub/a" and case.name == "a" and case.file == a


def test_directory_without_farm_yaml_is_its_own_root(tmp_path):
    write(tmp_path / "plain" / "x" / "y.yaml")
    [suite] = load_suites([tmp_path / "plain"], env={})
    assert [c.id for c in suite.cases] == ["plain/x/y"]


def test_missing_and_non_yaml_paths(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    errors = errors_of([tmp_path / "nope", tmp_path / "notes.txt"], env={})
    assert sorted(e.message.split(":")[0] for e in errors) == ["no such file or directory",
                                                               "not a YAML file"]


def test_variables_resolvable_from_every_source(tmp_path):
    write(tmp_path / "s" / "farm.yaml",
          "vars: {BASE: 'https://x'}\napps:\n  site:\n    serve: www\n    env: SITE_URL\n")
    (tmp_path / "s" / "www").mkdir()
    write(tmp_path / "s" / "c.yaml",
          "vars: {WHO: '${FROM_ENV}'}\nweb:\n  url: ${SITE_URL}\ntasks:\n  - name: t\n"
          "    flow:\n      - aiTap: ${BASE} ${WHO} ${MAYBE:-x}\n")
    assert load_suites([tmp_path / "s"], env={"FROM_ENV": "1"})
    errors = errors_of([tmp_path / "s"], env={})
    assert [(e.line, e.column) for e in errors] == [(1, 14)]
    assert "${FROM_ENV}" in errors[0].message


_yamlish = st.text(alphabet="abc:- \n\t[]{}&*!'\"#$%0\x00\u00e9", max_size=120)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.one_of(_yamlish, st.binary(max_size=80)))
def test_garbage_never_escapes_as_a_traceback(body):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.yaml"
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
        try:
            load_suites([path], env={})
        except SuiteErrors as exc:
            assert all(e.file.endswith("fuzz.yaml") for e in exc.errors)


def test_unreadable_file_is_reported(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root can read anything")
    case = write(tmp_path / "locked.yaml")
    case.chmod(0)
    errors = errors_of([case], env={})
    assert "cannot read file" in errors[0].message


# ---- the step-kind registry drives the loader ---------------------------------------------

# One minimal YAML form per shape of step (farm.suite.kinds.Shape).
_FORMS = {"locate": "{kind}: Sign in", "input": "{kind}: Username\n        value: demo",
          "key": "{kind}: Enter", "scroll": "{kind}:\n          direction: down",
          "ms": "{kind}: 10", "request": "{kind}:\n          method: GET\n"
                                         "          endpoint: /status",
          "text": "{kind}: something", "prompt": "{kind}: something",
          "swipe": "{kind}: the list\n        direction: up",
          "drag": "{kind}:\n        from: a card\n        to: the bin",
          "pinch": "{kind}: the map\n        direction: out",
          "record": "{kind}: the cart\n        content: two items"}
_TARGET = {"web": "web:\n  url: https://example.com\n", "android": "android:\n  launch: a.b\n",
           "ios": "ios:\n  launch: a.b\n"}


def case_text(platform: str, step: str) -> str:
    return f"{_TARGET[platform]}tasks:\n  - name: t\n    flow:\n      - {step}\n"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_declared_kind_loads(tmp_path, kind):
    spec = KINDS[kind]
    path = tmp_path / "c.yaml"
    platform = spec.platforms[0] if spec.platforms else "web"
    path.write_text(case_text(platform, _FORMS[spec.shape].format(kind=kind)))
    [step] = load_case_file(path, env={}).steps
    assert step.kind == kind and step.needs_model == spec.needs_model


@pytest.mark.parametrize("kind", sorted(k for k in KINDS if KINDS[k].platforms))
def test_a_platform_only_kind_elsewhere_is_a_suite_error_at_its_line(tmp_path, kind):
    spec = KINDS[kind]
    other = next(p for p in _TARGET if p not in spec.platforms)
    path = tmp_path / "c.yaml"
    path.write_text(case_text(other, _FORMS[spec.shape].format(kind=kind)))
    [err] = errors_of([path], env={})
    assert (err.line, err.column) == (6, 9)
    assert str(err).startswith(f"{err.file}:6:9: {kind} only works in "
                               f"{' and '.join(spec.platforms)} cases")


@pytest.mark.parametrize("option, platform", [(o, p) for o, allowed in OPTION_PLATFORMS.items()
                                              for p in _TARGET if p not in allowed])
def test_a_platform_only_option_elsewhere_is_a_suite_error_at_its_line(tmp_path, option,
                                                                       platform):
    """Not a run-time "AndroidDevice cannot tap_choosing_files": the load says it, at the
    option, as for a kind (and only that: the option's value is not looked at)."""
    kind = next(k for k in sorted(KINDS) if option in KINDS[k].allowed)
    path = tmp_path / "c.yaml"
    path.write_text(case_text(platform, f"{kind}: Upload\n        {option}: missing.txt"))
    [err] = errors_of([path], env={})
    assert str(err) == (f"{err.file}:7:9: {option} (on {kind}) only works in "
                        f"{' and '.join(OPTION_PLATFORMS[option])} cases (this case is for "
                        f"{platform})")


# What each device capability an action may lack (`ctx.optional(...)` in farm/agent/actions.py
# and phone_actions.py) is asked for by: a kind, or a kind's option.
_NEEDS = {"tap_choosing_files": ("aiTap", "fileChooserAccept"),
          "right_click": ("aiRightClick", None), "pinch": ("aiPinch", None),
          "shell_result": ("runAdbShell", None), "wda_request": ("runWdaRequest", None)}


def test_steps_load_only_where_the_device_can_do_what_they_ask():
    """Every optional device capability a step may need is limited, by its kind's or its
    option's platforms, to the platforms whose device has it: a step that loads never ends as
    "the driver has no ...()" at run time."""
    from farm.devices.android import AndroidDevice
    from farm.devices.browser import BrowserDevice
    from farm.devices.ios import IosDevice
    devices = {"web": BrowserDevice, "android": AndroidDevice, "ios": IosDevice}
    agent = Path(__file__).parents[2] / "farm" / "agent"
    actions = "".join((agent / name).read_text() for name in ("actions.py", "phone_actions.py"))
    assert set(re.findall(r'ctx\.optional\("(\w+)"\)', actions)) == set(_NEEDS)
    for capability, (kind, option) in _NEEDS.items():
        loads = set(KINDS[kind].platforms or devices) & set(
            OPTION_PLATFORMS.get(option, devices) if option else devices)
        has = {p for p, device in devices.items() if hasattr(device, capability)}
        assert loads == has, (capability, kind, option)


def test_an_unknown_kind_suggests_the_declared_one(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(case_text("android", "runAdbShel: ls"))
    [err] = errors_of([path], env={})
    assert (err.line, err.column) == (6, 9)
    assert "unknown step kind 'runAdbShel' (did you mean 'runAdbShell'?)" in err.message


def test_run_wda_request_forms(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(case_text("ios", "runWdaRequest:\n          method: post\n          url: "
                                     "/wda/homescreen\n          data: {name: home}\n"
                                     "        name: pressed"))
    [step] = load_case_file(path, env={}).steps
    assert step.label == 'runWdaRequest "POST /wda/homescreen"'
    assert step.action_params() == {"method": "POST", "endpoint": "/wda/homescreen",
                                    "data": {"name": "home"}}
    path.write_text(case_text("ios", "runWdaRequest:\n          method: FETCH\n"
                                     "          endpoit: /status"))
    errors = errors_of([path], env={})
    assert [(e.line, e.column) for e in errors] == [(7, 11), (7, 19), (8, 11)]
    assert "expected `endpoint: <path>`" in errors[0].message
    assert "expected one of GET, POST, PUT, PATCH, DELETE, got 'FETCH'" in errors[1].message
    assert "unknown key 'endpoit' in runWdaRequest (did you mean 'endpoint'?)" in \
        errors[2].message


# ---- what is read, and what is refused before reading ----------------------------------------

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"


@contextlib.contextmanager
def fifo_with_a_writer(fifo: Path, text: str):
    """A FIFO whose writer waits for a reader: code that opened it would read ``text``
    instead of hanging, so a test fails rather than blocks when the refusal is broken."""
    os.mkfifo(fifo)

    def write_when_read() -> None:
        with open(fifo, "w") as f:
            f.write(text)

    writer = threading.Thread(target=write_when_read)
    writer.start()
    try:
        yield fifo
    finally:
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # let the writer finish
        writer.join()
        os.close(reader)


def test_a_fifo_named_yaml_is_refused_without_opening_it(tmp_path):
    (tmp_path / "suite").mkdir()
    write(tmp_path / "suite" / "ok.yaml")
    with fifo_with_a_writer(tmp_path / "suite" / "pipe.yaml", CASE) as fifo:
        for given in (tmp_path / "suite", fifo):
            [err] = errors_of([given], env={})
            assert err.file.endswith("pipe.yaml")
            assert err.message == "not a regular file (a FIFO (named pipe)): expected a YAML file"


@pytest.mark.parametrize("device, kind", [("/dev/zero", "a character device"),
                                          ("/dev/null", "a character device")])
def test_a_link_to_a_device_is_refused_from_stat(tmp_path, device, kind):
    (tmp_path / "zero.yaml").symlink_to(device)
    [err] = errors_of([tmp_path], env={})
    assert err.message == f"not a regular file ({kind}): expected a YAML file"


def test_a_farm_yaml_that_is_not_a_file_is_reported(tmp_path):
    write(tmp_path / "a.yaml")
    with fifo_with_a_writer(tmp_path / "farm.yaml", "retries: 1\n"):
        [err] = errors_of([tmp_path], env={})
    assert err.file.endswith("farm.yaml") and "a FIFO" in err.message


def test_size_is_checked_before_reading_and_reads_stop_at_the_limit(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:           # sparse: 3 GB on paper, nothing on disk
        f.truncate(3 * 1024 ** 3)
    [err] = errors_of([big], env={})
    assert err.message == (f"file is too large ({3 * 1024 ** 3} bytes): suite files must be "
                           f"under {yamlpos.MAX_BYTES} bytes")
    # /proc files are regular but say they are empty: the read itself stops at the limit.
    maps = tmp_path / "maps.yaml"
    maps.symlink_to("/proc/self/maps")
    monkeypatch.setattr(yamlpos, "MAX_BYTES", 64)
    [err] = errors_of([maps], env={})
    assert err.message == "file is too large (more than 64 bytes): suite files must be under " \
                          "64 bytes"


@pytest.mark.parametrize("where, text, line, column, phrase", [
    ("farm.yaml", "retries: 1000000000\n", 1, 10,
     "retries: expected a non-negative integer no larger than 10, got the number 1000000000"),
    ("case.yaml", CASE + "retries: 11\n", 7, 10,
     "retries: expected a non-negative integer no larger than 10, got the number 11"),
    ("case.yaml", CASE + "retries: -1\n", 7, 10,
     "retries: expected a non-negative integer, got the number -1"),
    ("farm.yaml", "timeout: -5\n", 1, 10,
     "timeout: expected seconds per case as a number > 0, got the number -5"),
    ("case.yaml", CASE + "timeout: 0\n", 7, 10,
     "timeout: expected seconds as a number > 0, got the number 0"),
    ("case.yaml", CASE + "timeout: 10000000000\n", 7, 10,   # would crash a device thread
     "timeout: expected seconds as a number > 0 no larger than 86400, got the number "
     "10000000000"),
])
def test_retries_and_timeout_out_of_range_are_positioned_errors(tmp_path, where, text, line,
                                                                column, phrase):
    (tmp_path / "farm.yaml").write_text(text if where == "farm.yaml" else "")
    (tmp_path / "case.yaml").write_text(text if where == "case.yaml" else CASE)
    [err] = errors_of([tmp_path], env={})
    assert (err.file.endswith(where), err.line, err.column) == (True, line, column)
    assert err.message == phrase


def test_the_largest_retries_and_a_day_long_timeout_load(tmp_path):
    (tmp_path / "farm.yaml").write_text(f"retries: {MAX_RETRIES}\ntimeout: 86400\n")
    write(tmp_path / "case.yaml")
    [case] = load_suites([tmp_path], env={})[0].cases
    assert (case.retries, case.timeout) == (MAX_RETRIES, 86400)


def test_hidden_files_and_folders_are_skipped_and_listed_on_request(tmp_path):
    write(tmp_path / "s" / "a.yaml")
    write(tmp_path / "s" / ".x.yaml")
    write(tmp_path / "s" / "..x.yaml")
    write(tmp_path / "s" / ".drafts" / "b.yaml")
    (tmp_path / "s" / ".notes.txt").write_text("not a case")
    skipped: list[str] = []
    [suite] = load_suites([tmp_path / "s"], env={}, skipped=skipped)
    assert [c.id for c in suite.cases] == ["s/a"]
    shown = display_path(tmp_path / "s")
    assert skipped == [f"hidden directory {shown}/.drafts/", f"hidden file {shown}/..x.yaml",
                       f"hidden file {shown}/.x.yaml"]


def test_farm_run_verbose_prints_what_was_skipped(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from farm.cli import cli
    write(tmp_path / "s" / "..x.yaml")
    write(tmp_path / "s" / "good.yaml")
    monkeypatch.chdir(tmp_path)
    quiet = CliRunner().invoke(cli, ["run", "--collect-only", "s"])
    loud = CliRunner().invoke(cli, ["run", "--collect-only", "-v", "s"])
    assert quiet.exit_code == loud.exit_code == 0, quiet.output
    assert "skipped" not in quiet.output    # (a run that finds no case says it: it is why)
    assert "farm: skipped hidden file s/..x.yaml" in loud.output


def test_an_upper_case_yaml_extension_is_a_case_file_in_a_folder_too(tmp_path):
    """`C.YAML` named on the command line loaded, but a folder walk passed over it without a
    word (even under -v)."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "C.YAML").write_text(
        "name: upper\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 1\n")
    [suite] = load_suites([tmp_path / "s"], env={})
    assert [c.name for c in suite.cases] == ["upper"]


def test_a_nul_byte_is_placed_where_an_editor_shows_it(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_bytes("\ufeffweb:\n  url: about:blank\ntasks: []\n# café ☕\x00\n".encode())
    [err] = errors_of([case], env={})
    assert str(err) == (f"{display_path(case)}:4:9: not a text file (contains NUL bytes): "
                        "expected YAML")
    case.write_bytes(b"\xef\xbb\xbfname: a\x00b\n")          # a BOM is not a column
    [err] = errors_of([case], env={})
    assert (err.line, err.column) == (1, 8)
