"""A `vars:` entry named like a variable every shell sets (HOME) is never used where the
environment has it (the environment wins over vars:, so CI can override one): it said
nothing, and `url: ${HOME}` opened file:///root/. A warning names it, never a value."""

from __future__ import annotations

from farm.suite.loader import load_suites

CASE = "name: c\nweb:\n  url: ${HOME}\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _load(tmp_path, env):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text("vars:\n  HOME: http://127.0.0.1:9/index.html\n")
    (suite / "c.yaml").write_text(CASE)
    warnings: list[str] = []
    load_suites([suite], env=env, dotenv=None, warnings=warnings)
    return warnings


def test_a_shell_variable_in_vars_is_said_to_lose_to_the_environment(tmp_path):
    warnings = _load(tmp_path, {"HOME": "/root"})
    said = [w for w in warnings if "HOME" in w]
    assert len(said) == 1
    assert "farm.yaml:2:" in said[0]
    assert "the environment's HOME (set by every shell) wins" in said[0]
    assert "never used" in said[0] and "another name" in said[0]
    assert "/root" not in said[0] and "127.0.0.1" not in said[0]


def test_no_warning_when_the_environment_does_not_set_it(tmp_path):
    assert not [w for w in _load(tmp_path, {}) if "HOME" in w]


def test_a_case_vars_entry_is_said_too(tmp_path):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "c.yaml").write_text(CASE.replace("web:", "vars:\n  PATH: x\nweb:")
                                  .replace("${HOME}", "http://127.0.0.1:9/${PATH}"))
    warnings: list[str] = []
    load_suites([suite], env={"PATH": "/usr/bin"}, dotenv=None, warnings=warnings)
    said = [w for w in warnings if "vars.PATH" in w]
    assert len(said) == 1 and "c.yaml:3:3:" in said[0]
    assert "/usr/bin" not in said[0]
