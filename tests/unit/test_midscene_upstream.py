"""Midscene's own example scripts (tests/midscene/upstream/: its CLI test scripts and the complete
examples of its YAML docs, copied unchanged below an attribution header) through
`farm run --collect-only`: each loads, or is refused with exactly one file:line:col reason where
farm genuinely cannot do what it asks. The working directory is upstream/, as it is
packages/cli/ upstream (the scripts' `serve: ./tests/server_root` is relative to it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from farm.cli import main

UPSTREAM = Path(__file__).resolve().parents[1] / "midscene" / "upstream"
BRIDGE = "bridge mode drives your desktop Chrome through Midscene's Chrome extension"
ELSEWHERE = "is not supported by farm: it drives browsers, Android and iOS devices, not"

# Every script or batch of upstream/ and what farm says of it: None = loads, else where and why
# it is refused.
EXPECTED: dict[str, tuple[str, str] | tuple[str, str, int] | None] = {
    "tests/ai/cache_scripts/cache-test-disabled.yml": None,
    "tests/ai/cache_scripts/cache-test-explicit-id.yml": None,
    "tests/ai/cache_scripts/cache-test-readonly-mode.yml": None,
    "tests/midscene_scripts/agent-opts/extended-options.yml": None,
    "tests/midscene_scripts/local/local-error-message.yml": None,
    "tests/midscene_scripts/local/local.yml": None,
    "tests/midscene_scripts/online/image-prompting.yaml": None,
    "tests/midscene_scripts/online/online.yaml": None,
    "tests/midscene_scripts_bridge/current_tab/check_content.yaml": ("4:15", BRIDGE),
    "tests/midscene_scripts_bridge/new_tab/bing.yaml": ("5:15", BRIDGE),
    "tests/midscene_scripts_bridge/new_tab/local.yml": ("6:15", BRIDGE),
    "tests/midscene_scripts_bridge/new_tab/open-new-tab.yaml": ("6:15", BRIDGE, 2),
    "tests/multi_yaml_android_scripts/index.yaml": None,
    "tests/multi_yaml_android_scripts/android-without-launch.yaml": None,
    "tests/multi_yaml_ios_scripts/index.yaml": None,
    "tests/multi_yaml_ios_scripts/ios-without-launch.yaml": None,
    "tests/multi_yaml_scripts/index.yaml": None,
    "tests/multi_yaml_android_scripts/maps-navigation.yaml": None,
    "tests/multi_yaml_android_scripts/search-headphone-on-ebay.yaml": None,
    "tests/multi_yaml_android_scripts/twitter-auto-like.yaml": None,
    "tests/multi_yaml_ios_scripts/maps-navigation.yaml": None,
    "tests/multi_yaml_ios_scripts/search-headphone-on-ebay.yaml": None,
    "tests/multi_yaml_ios_scripts/twitter-auto-like.yaml": None,
    "tests/multi_yaml_scripts/after-login.yaml": None,
    "tests/multi_yaml_scripts/login.yaml": None,
    "tests/multi_yaml_scripts/local/local.yml": None,
    "tests/multi_yaml_scripts/local/local-error-message.yml": None,
    "tests/share_context_test_scripts/01-login.yaml": None,
    "tests/share_context_test_scripts/02-check-login.yaml": None,
    "tests/share_context_test_scripts/index.yaml": None,
    "docs/automate-with-scripts-in-yaml-L12.yaml": None,
    "docs/automate-with-scripts-in-yaml-L49.yaml": None,
    # the docs' "iOS ... Or Android" template holds both sections
    "docs/automate-with-scripts-in-yaml-L115.yaml": ("18:1", "two target sections"),
    "docs/automate-with-scripts-in-yaml-L290.yaml": None,
    "docs/automate-with-scripts-in-yaml-L325.yaml": None,
    "docs/automate-with-scripts-in-yaml-L343.yaml": None,
    "docs/automate-with-scripts-in-yaml-L391.yaml": None,
    "docs/automate-with-scripts-in-yaml-L428.yaml": None,
    "docs/automate-with-scripts-in-yaml-L446.yaml": None,
    "docs/automate-with-scripts-in-yaml-L491.yaml": ("3:1", f"harmony: {ELSEWHERE}"),
    "docs/automate-with-scripts-in-yaml-L507.yaml": ("3:1", f"harmony: {ELSEWHERE}"),
    "docs/automate-with-scripts-in-yaml-L521.yaml": ("3:1", f"harmony: {ELSEWHERE}"),
    "docs/automate-with-scripts-in-yaml-L547.yaml": ("3:1", f"computer: {ELSEWHERE}"),
    "docs/yaml-script-runner-L8.yaml": None,
    "docs/yaml-script-runner-L71.yaml": None,
    "docs/yaml-script-runner-L85.yaml": None,
    "docs/yaml-script-runner-L101.yaml": None,
    "docs/batch-L253/index.yaml": None,
    "docs/batch-L275/index.yaml": None,
}


def _scripts() -> list[str]:
    """Every Midscene file of upstream/ (not the stand-ins written here)."""
    return [p.relative_to(UPSTREAM).as_posix() for p in sorted(UPSTREAM.rglob("*.y*ml"))
            if not p.read_text().startswith("# Written here")]


def test_every_upstream_script_has_an_expected_outcome() -> None:
    assert sorted(_scripts()) == sorted(EXPECTED)
    assert len([s for s in EXPECTED if s.startswith("tests/midscene_scripts")]) >= 9


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_an_upstream_script_loads_or_is_refused_with_one_reason(script: str, monkeypatch,
                                                                 capsys) -> None:
    monkeypatch.chdir(UPSTREAM)
    monkeypatch.setattr(sys, "argv", ["farm", "run", "--collect-only", script])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    output = out.out + out.err
    expected = EXPECTED[script]
    if expected is None:
        assert code == 0, output
        assert "case(s) collected" in output and "problem" not in output
        return
    where, phrase, *count = expected
    assert code == 4, output
    problems = [line.strip() for line in out.err.splitlines() if line.startswith("  ")]
    assert len(problems) == (count or [1])[0], output
    assert problems[0].startswith(f"{script}:{where}: ") and phrase in problems[0], problems


def test_what_the_agent_section_of_an_upstream_script_does(monkeypatch) -> None:
    """extended-options.yml: groupName titles the case, groupDescription describes it,
    reportFileName names its own report page; local.yml's stray agent.strategy is a warning,
    as it has no effect in Midscene either."""
    from farm.suite.loader import load_suites
    monkeypatch.chdir(UPSTREAM)
    warnings: list[str] = []
    cases = {c.file.name: c for s in load_suites(
        ["tests/midscene_scripts/agent-opts/extended-options.yml",
         "tests/midscene_scripts/local/local.yml"], env={}, warnings=warnings) for c in s.cases}
    opts, local = cases["extended-options.yml"], cases["local.yml"]
    assert opts.name == "Extended Options Test Suite"
    assert opts.description.startswith("Testing new agent configuration fields")
    assert opts.report_file == "extended-opts-report.html"
    assert opts.id.endswith("/extended-opts-test")
    assert local.agent["cache"] is True
    assert [w for w in warnings if "agent.strategy" in w] == [
        "tests/midscene_scripts/local/local.yml:8:3: agent.strategy is not a Midscene agent "
        "option and has no effect (Midscene ignores it too; the cache is read-write); write it "
        "as agent.cache.strategy"]


def test_group_description_and_report_file_name_reach_the_report(tmp_path: Path) -> None:
    from farm.report.html import write_html
    from farm.results import CaseResult, RunSummary
    cases = [CaseResult(run_id="r", case_id="s/a", name="Checkout", file="a.yaml",
                        platform="web", status="passed", description="The whole checkout",
                        report_file="checkout-report.html"),
             CaseResult(run_id="r", case_id="s/b", name="Other", file="b.yaml",
                        platform="web", status="failed")]
    summary = RunSummary(run_id="r", started="", cases=cases)
    summary.recount()
    write_html(summary, tmp_path)
    merged = (tmp_path / "report.html").read_text()
    own = (tmp_path / "checkout-report.html").read_text()
    assert "The whole checkout" in merged and "Other" in merged
    assert "The whole checkout" in own and "Other" not in own
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkout-report.html", "report.css",
                                                        "report.html"]
