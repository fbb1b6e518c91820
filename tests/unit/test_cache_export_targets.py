"""`farm cache export`'s file is a case farm loads and runs: its target section (web, android,
ios) in the keys the loader reads, with every setting the case had; and it lands beside the
case without becoming a second case of the suite (discovery and a batch's globs pass
``*.solved.yaml`` over; named, it runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.cache.export import export_case, export_path
from farm.cache.keys import Namespace, app_version
from farm.cache.store import MemoryStore
from farm.suite.loader import display_path, load_case_file, load_suites

FLOW = """tasks:
  - name: sign in
    flow:
      - ai: log in as demo
      - assertText: Welcome back
"""
TARGETS = {
    "page": """page:
  url: ${SHOP_URL:-index.html}
  serve: app
  viewportWidth: 390
  viewportHeight: 844
  userAgent: farm-test
  deviceScaleFactor: 2
  cookie: cookies.json
  extraHTTPHeaders: {X-Test: "1"}
  acceptInsecureCerts: true
  chromeArgs: [--lang=de]
  waitForNetworkIdle: {timeout: 1500, continueOnNetworkIdleError: false}
  forceSameTabNavigation: false
  output: out/login.json
  unstableLogContent: true
""",
    "browser": "browser:\n  url: http://127.0.0.1:1/\n  autoFollowNewPage: true\n",
    "web": "web:\n  url: http://127.0.0.1:1/\n  mode: browser\n",
    "target": "target:\n  url: http://127.0.0.1:1/\n",         # deprecated: read as page:
    "android": """android:
  deviceId: ${SERIAL:-emulator-5554}
  launch: com.farm.demo.shop
  imeStrategy: always-yadb
  autoDismissKeyboard: true
""",
    "android-any": "android:\n",                    # any device, no app launched
    "ios": """ios:
  launch: com.farm.demo.shop
  autoDismissKeyboard: true
  wdaPort: 8101
  wdaHost: 127.0.0.1
""",
}


def _solved(suite: Path, target: str) -> tuple[Path, Path]:
    """A suite with one case ``login.yaml`` whose ai step the cache has solved, and the path
    its export went to."""
    (suite / "app").mkdir(parents=True, exist_ok=True)
    (suite / "cookies.json").write_text(json.dumps([{"name": "sid", "value": "1"}]))
    (suite / "farm.yaml").write_text("vars:\n  PW: x\n")
    path = suite / "login.yaml"
    path.write_text(f"name: login\n{target}{FLOW}")
    case = load_case_file(path, env={})
    store = MemoryStore()
    ns = Namespace(case.id, case.platform, app_version(case.cache_key, case.agent))
    store.put(ns.key("plan", "log in as demo", 0), {"actions": [
        {"type": "Input", "params": {"value": "${PW}", "locate": {"prompt": "Password"}}},
        {"type": "Tap", "params": {"locate": {"prompt": "Sign in"}}}]})
    store.put(ns.key("locate", "Sign in", 0), {"xpaths": ["//*[@id='signin']"]})
    out = export_path(case, None)
    out.write_text(export_case(case, store))
    return path, out


@pytest.mark.parametrize("target", TARGETS.values(), ids=TARGETS.keys())
def test_an_exported_case_loads_with_the_target_it_was_exported_from(tmp_path, target):
    path, out = _solved(tmp_path / "s", target)
    assert out == tmp_path / "s" / "login.solved.yaml"
    case, exported = load_case_file(path, env={}), load_case_file(out, env={})
    assert exported.platform == case.platform
    assert (exported.web, exported.android, exported.ios) == (case.web, case.android, case.ios)
    assert (exported.output, exported.log_content) == (case.output, case.log_content)
    assert [(s.kind, s.target, s.value, s.xpath) for s in exported.steps] == [
        ("aiInput", "Password", "${PW}", None),
        ("aiTap", "Sign in", None, "//*[@id='signin']"),
        ("assertText", None, "Welcome back", None)]
    if "${" in target:
        assert "${" in out.read_text()      # the variable, not the value it had at export


def test_mobile_exports_use_midscenes_keys(tmp_path):
    """What the audit saw: `auto_dismiss_keyboard: false` in the export, and then every run
    of the suite refused it."""
    _, out = _solved(tmp_path / "s", TARGETS["android"])
    text = out.read_text()
    assert "autoDismissKeyboard: true" in text and "deviceId:" in text
    assert "auto_dismiss_keyboard" not in text and "device_id" not in text


def test_the_suite_does_not_collect_its_exports_but_runs_one_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, out = _solved(tmp_path / "s", TARGETS["android"])
    skipped: list[str] = []
    cases = [c.id for s in load_suites([tmp_path / "s"], env={}, skipped=skipped)
             for c in s.cases]
    assert cases == ["s/login"]
    assert skipped == [f"`farm cache export` output {display_path(out)}"]
    assert [c.id for s in load_suites([out], env={}) for c in s.cases] == ["s/login.solved"]


@pytest.mark.parametrize("pattern, ids", [
    ("login*.yaml", ["s/login"]),                     # a glob passes the export over ...
    ("*.solved.yaml", ["s/login.solved"]),            # ... unless it asks for exports
    ("login.solved.yaml", ["s/login.solved"]),
])
def test_a_batchs_glob_takes_an_export_only_when_it_names_one(tmp_path, pattern, ids):
    _solved(tmp_path / "s", TARGETS["ios"])
    (tmp_path / "s" / "index.yaml").write_text(f"files:\n  - '{pattern}'\n")
    assert [c.id for s in load_suites([tmp_path / "s"], env={}) for c in s.cases] == ids


def test_farm_run_verbose_lists_an_export_it_passed_over(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from farm.cli import cli
    monkeypatch.chdir(tmp_path)
    _, out = _solved(tmp_path / "s", TARGETS["ios"])
    (tmp_path / "s" / "login.yaml").unlink()          # the export is all there is
    loud = CliRunner().invoke(cli, ["run", "-v", "s"])
    assert loud.exit_code == 5, loud.output          # no cases found
    assert "farm: skipped `farm cache export` output s/login.solved.yaml" in loud.output


def test_an_exported_name_loads_as_the_same_text(tmp_path):
    """Names take their variables' values at load: a name written with the `$${X}` escape is
    the text "${X}", and an export that wrote it back as is made a file that no longer loaded
    ("undefined variable ${X}")."""
    path, out = _solved(tmp_path / "s", TARGETS["web"])
    path.write_text(path.read_text().replace("name: login\n", "name: login $${SHOP}\n", 1)
                    .replace("- name: sign in", "- name: task $${SHOP}", 1)
                    .replace("      - assertText: Welcome back\n", "      - assertText: Welcome back\n"
                             "      - javascript: \"1\"\n        name: js $${SHOP}\n", 1))
    case = load_case_file(path, env={})
    store = MemoryStore()
    ns = Namespace(case.id, case.platform, app_version(case.cache_key, case.agent))
    store.put(ns.key("plan", "log in as demo", 0), {"actions": [
        {"type": "Tap", "params": {"locate": {"prompt": "Sign in"}}}]})
    out.write_text(export_case(case, store))
    exported = load_case_file(out, env={})
    assert exported.name == "login ${SHOP} (exported from the cache)"
    assert exported.tasks[0].name == "task ${SHOP}"
    assert exported.steps[-1].options["name"] == "js ${SHOP}"
