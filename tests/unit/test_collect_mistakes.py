"""What `farm run` says about mistakes found while loading and selecting, before any device
starts: two cases with one id, an unclosed quote, a selection that leaves nothing, and the
mobile cases of a run without --devices.  Through the command's entry point (`main`), as a
user sees it: the exit code and the lines printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import farm.session
from tests.support.farm_cli import run_main
from tests.support.load_errors import NOT_RUN, problems

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "suites" / "demo"
WEB = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"
TEST_ID = "agent:\n  testId: same\n"        # lines 7-8 after WEB: the id at 8:11


@pytest.fixture
def farm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS...`` in ``tmp_path``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args)


def _write(path: Path, text: str = WEB) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ---- two cases, one id ------------------------------------------------------------------------

def test_the_same_stem_as_yaml_and_yml_is_refused_naming_both(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "login.yaml")
    _write(tmp_path / "s" / "login.yml")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 4 and "Traceback" not in err and "collected" not in out
    assert problems(err) == [
        "farm: 1 problem in suite files:",
        "  s/login.yml:1:1: duplicate case id 's/login': s/login.yaml:1 and s/login.yml:1; "
        "rename one of the files, or set agent.testId in one of them"]


def test_one_agent_test_id_in_two_files_is_refused_at_the_second(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "a.yaml", WEB + TEST_ID)
    _write(tmp_path / "s" / "b.yaml", WEB + TEST_ID)
    _write(tmp_path / "s" / "c.yaml")
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4
    assert problems(err)[1:] == [
        "  s/b.yaml:8:11: duplicate case id 's/same': s/a.yaml:8 and s/b.yaml:8; "
        "give one of them a different agent.testId"]


def test_two_suite_folders_of_one_name_are_refused(farm_run, tmp_path) -> None:
    for side in ("a", "b"):
        _write(tmp_path / side / "demo" / "farm.yaml", "retries: 0\n")
        _write(tmp_path / side / "demo" / "login.yaml")
    code, out, err = farm_run("a/demo", "b/demo", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err)[1:] == [
        "  b/demo/login.yaml:1:1: duplicate case id 'demo/login': a/demo/login.yaml:1 and "
        "b/demo/login.yaml:1; ids start with the suite folder's name and both suites are "
        "named 'demo' (a/demo, b/demo): rename one of the folders, or set a different "
        "agent.testId"]


# ---- YAML syntax: where the mistake is --------------------------------------------------------

def test_an_unclosed_quote_is_reported_at_the_quote(farm_run, tmp_path) -> None:
    lines = (DEMO / "checkout_e2e.yaml").read_text().split("\n")
    assert lines[32] == '      - assertText: "Total: $25.00"'
    lines[32] = "      - assertText: 'Total: $25.00"        # the closing quote forgotten
    _write(tmp_path / "s" / "checkout.yaml", "\n".join(lines))
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4 and "Traceback" not in err
    assert problems(err)[1:] == [
        "  s/checkout.yaml:33:21: unclosed quote: the string that starts here never ends"]


def test_a_bad_scroll_distance_is_one_problem_not_two(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "c.yaml", WEB.replace("      - aiTap: go\n", "      - aiScroll:\n"
                                                  "        direction: down\n"
                                                  "        distance: -3\n"))
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4 and problems(err)[1:] == [
        "  s/c.yaml:8:19: aiScroll distance: expected pixels as a positive integer, got the "
        "number -3"]


def test_a_syntax_error_names_the_line_its_mapping_starts_at(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "c.yaml", WEB + "     timeout: 5\n")     # under-indented option
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4
    assert problems(err)[1:] == [
        "  s/c.yaml:7:6: invalid YAML: did not find expected key (in the mapping that starts "
        "at line 4)"]


def test_an_unquoted_colon_in_a_value_says_to_quote_it(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "c.yaml", WEB.replace("aiTap: go", "assertText: Total: $25.00"))
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4
    assert problems(err)[1:] == [
        "  s/c.yaml:6:26: invalid YAML: mapping values are not allowed in this context; a value "
        "holding ': ' must be quoted: assertText: \"Total: $25.00\""]


# ---- what only shows at run time is found at load ---------------------------------------------

@pytest.mark.parametrize("url, why", [
    ("htp://127.0.0.1:3999/index.html", "unsupported scheme 'htp:' (did you mean 'http'?); farm "
     "opens http://, https:// and file:// addresses, about: and data:"),
    ("http://127.0.0.1:99999/", "port 99999 is out of range (1-65535)"),
    ("http://", "no host: expected an address like http://127.0.0.1:3999/index.html"),
    ("ftp://127.0.0.1/x.html", "unsupported scheme 'ftp:'; farm opens http://, https:// and "
     "file:// addresses, about: and data:"),
    ("127.0.0.1:3999/index.html", "no scheme, so it would be opened as a file path relative to "
     "the case file; write 'http://127.0.0.1:3999/index.html' (or https://) for a web address"),
    ("localhost:3999", "no scheme, so it would be opened as a file path relative to the case "
     "file; write 'http://localhost:3999' (or https://) for a web address"),
    ("http:/127.0.0.1/", "expected http:// and then the host"),
    ("https://shop:port/", "port 'port' is not a number"),
    # a password with '#' ends the address early; no piece of it is quoted
    ("http://admin:Pa55#word-2024@127.0.0.1:8080/x.html", "the address ends inside its "
     "user:password@ part: a '#', '?' or '/' in it must be %-encoded (# as %23, ? as %3F, / "
     "as %2F)"),
])
def test_a_url_that_cannot_be_a_page_stops_the_run_before_any_device_starts(
        farm_run, tmp_path, monkeypatch, url, why) -> None:
    """Not at run time, where the browser would be blamed (retried, quarantined, and the
    good cases after it left without a device)."""
    def no_device(*_args, **_kw):
        raise AssertionError("a device was asked for")
    monkeypatch.setattr(farm.session, "_executor", no_device)
    _write(tmp_path / "s" / "bad.yaml", WEB.replace("https://example.com", f'"{url}"'))
    _write(tmp_path / "s" / "good.yaml")
    code, out, err = farm_run("s", "--no-progress", "--report-dir", "r")
    assert code == 4, out + err
    assert problems(err, NOT_RUN)[1:] == [f"  s/bad.yaml:2:8: web.url: {url!r}: {why}"]


@pytest.mark.parametrize("url", [
    "https://example.com", "http://127.0.0.1:3999/index.html", "http://[::1]:8080/", "HTTP://X/",
    "https://user:pw@host/x", "file:///tmp/page.html", "about:blank", "data:text/html,<p>hi",
    "index.html", "../site/index.html?x=1#top", "/srv/page.html", "${SHOP_URL}/index.html",
    "http://${HOST}:99999/", "${SCHEME}://x",
])
def test_pages_farm_can_open_load(farm_run, tmp_path, monkeypatch, url) -> None:
    monkeypatch.setenv("SHOP_URL", "x")
    monkeypatch.setenv("HOST", "x")
    monkeypatch.setenv("SCHEME", "x")
    _write(tmp_path / "s" / "c.yaml", WEB.replace("https://example.com", f'"{url}"'))
    code, out, err = farm_run("s", "--collect-only")
    assert code == 0, out + err


def test_a_web_only_option_in_an_android_case_stops_the_run(farm_run, tmp_path) -> None:
    _write(tmp_path / "s" / "upload.yaml", "android:\n  launch: com.example\n" + WEB[WEB.index(
        "tasks"):] + "        fileChooserAccept: a.txt\n")
    code, out, err = farm_run("s", "--collect-only", "--devices", "android:1")
    assert code == 4 and "collected" not in out
    assert problems(err)[1:] == [
        "  s/upload.yaml:7:9: fileChooserAccept (on aiTap) only works in web cases (this case "
        "is for android)"]


# ---- --collect-only agrees with the run: nothing selected is exit 5 ---------------------------

@pytest.mark.parametrize("option", [["-k", "nomatch"], ["--tag", "nomatch"]])
def test_collect_only_with_nothing_selected_exits_5(farm_run, option) -> None:
    code, out, err = farm_run(DEMO, *option, "--collect-only")
    assert code == 5 and out == ""
    assert err.splitlines()[-1] == ("farm: 0 case(s) collected (expected 0.0s of device time, "
                                    "summed over the cases), 16 deselected")
    code, out, err = farm_run(DEMO, "-k", "login_success", "--collect-only")
    assert code == 0 and "farm: 1 case(s) collected" in err and "collected" not in out


def test_a_selection_of_nothing_leaves_the_report_dir_as_it_was(farm_run, tmp_path) -> None:
    """`-k <typo> --report-dir D --overwrite`: exit 5 naming the -k, and D's earlier run kept
    (it was wiped, and replaced by a report of nothing); --junit-xml a document of no test."""
    report = tmp_path / "D"
    (report / "artifacts").mkdir(parents=True)
    (report / "results.json").write_text('{"run_id": "earlier"}')
    (report / "artifacts" / "step1.jpg").write_bytes(b"jpeg")
    code, out, err = farm_run(DEMO, "--devices", "browser:1", "-k", "lgoin", "--report-dir",
                              report, "--overwrite", "--junit-xml", tmp_path / "j.xml")
    assert code == 5, out + err
    assert "farm: no case selected: 16 deselected by -k lgoin" in out.splitlines()
    assert out.splitlines()[-1] == "farm: nothing to run: no report written"
    assert sorted(p.name for p in report.rglob("*")) == ["artifacts", "results.json",
                                                         "step1.jpg"]
    assert (report / "results.json").read_text() == '{"run_id": "earlier"}'
    assert '<testsuites name="farm run' in (tmp_path / "j.xml").read_text()


def test_collect_only_says_which_expected_seconds_are_guesses(farm_run) -> None:
    """A case that never ran here counts as the default 30 s (the demo's 16 cases were
    "expected 158.2s" on a machine where they run in seconds): the total says how many of
    its cases are that guess."""
    from farm.history import DurationHistory
    from farm.results import CaseResult
    code, out, err = farm_run(DEMO, "-k", "login_", "--collect-only")
    assert code == 0 and err.splitlines()[-1] == (
        "farm: 2 case(s) collected (expected 60.0s of device time, summed over the cases; 2 "
        "never ran here, 30s each assumed), 14 deselected")
    import os
    DurationHistory(Path(os.environ["FARM_STATE_DIR"])).record([CaseResult(
        run_id="r", case_id="demo/login_success", name="n", file="f", platform="web",
        status="passed", duration=1.5, started="2026-12-03T00:00:00+00:00")])
    code, out, err = farm_run(DEMO, "-k", "login_", "--collect-only")
    assert err.splitlines()[-1] == (
        "farm: 2 case(s) collected (expected 31.5s of device time, summed over the cases; 1 "
        "never ran here, 30s each assumed), 14 deselected")


# ---- no --devices: the default browser:1, for selection too -----------------------------------

def test_without_devices_mobile_cases_are_deselected_as_with_browser_1(
        farm_run, tmp_path, monkeypatch) -> None:
    """... and the line says no --devices was given and how to give it: it said "no android
    device in --devices browser:1", a flag the user had not given. Nothing left to run writes
    no report (exit 5)."""
    def no_device(*_args, **_kw):
        raise AssertionError("a device was asked for: the mobile cases were not deselected")
    monkeypatch.setattr(farm.session, "_executor", no_device)
    _write(tmp_path / "m" / "phone.yaml", "android:\n  launch: com.example\n" + WEB[WEB.index(
        "tasks"):])
    _write(tmp_path / "m" / "tablet.yaml", "ios:\n  launch: com.example\n" + WEB[WEB.index(
        "tasks"):])
    runs = {}
    for label, devices in (("default", []), ("explicit", ["--devices", "browser:1"])):
        code, out, err = farm_run("m", *devices, "--no-progress", "--report-dir", label)
        assert code == 5, out + err          # nothing left to run, nothing errored
        assert not (tmp_path / label).exists()
        runs[label] = [line for line in out.splitlines() if "deselected" in line]
    assert runs["default"] == [
        "farm: deselected 1 android case(s): no --devices given, and without it farm runs on "
        "browser:1 alone: give --devices android:1 (--devices browser:1,android:1 runs both), "
        "or android-sim:1 for simulated phones farm starts itself",
        "farm: deselected 1 ios case(s): no --devices given, and without it farm runs on "
        "browser:1 alone: give --devices ios:1 (--devices browser:1,ios:1 runs both), "
        "or ios-sim:1 for simulated iPhones farm starts itself"]
    assert runs["explicit"] == [
        "farm: deselected 1 android case(s): no android device in --devices browser:1: add "
        "android:1, or android-sim:1 for simulated phones farm starts itself",
        "farm: deselected 1 ios case(s): no ios device in --devices browser:1: add ios:1, or "
        "ios-sim:1 for simulated iPhones farm starts itself"]


def test_a_taken_metrics_port_leaves_the_report_dir_as_it_was(farm_run, tmp_path) -> None:
    """`--metrics-port P` (P taken) `--report-dir D --overwrite`: exit 4 naming the port, and
    D's earlier run kept; it was wiped first, then the run stopped with nothing in its place."""
    import socket

    report = tmp_path / "D"
    (report / "artifacts").mkdir(parents=True)
    (report / "results.json").write_text('{"run_id": "earlier"}')
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, out, err = farm_run(DEMO, "--devices", "browser:1", "-k", "login_success",
                                  "--metrics-port", str(port), "--report-dir", report,
                                  "--overwrite")
    assert code == 4, out + err
    assert f"--metrics-port {port}" in err and "Traceback" not in err, err
    assert sorted(p.name for p in report.iterdir()) == ["artifacts", "results.json"]
    assert (report / "results.json").read_text() == '{"run_id": "earlier"}'
