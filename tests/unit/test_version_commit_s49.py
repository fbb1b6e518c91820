"""`farm --version` says the commit farm was built from (a checkout's, or the one a wheel
recorded), as farm_build_info does: a CI image built from another commit shows it."""

from __future__ import annotations

from click.testing import CliRunner

from farm import build_commit
from farm.cli import cli


def test_farm_version_names_the_checkout_s_commit():
    head = build_commit()                   # (the checkout's .git, as farm reads it)
    assert len(head) == 12
    out = CliRunner().invoke(cli, ["--version"])
    assert out.exit_code == 0, out.output
    line = out.output.strip()
    assert line.startswith("farm, version 0.1.0+") and f"+{head}" in line, line


def test_farm_version_stops_before_any_command_runs():
    out = CliRunner().invoke(cli, ["--version", "run", "no-such-suite"])
    assert out.exit_code == 0 and out.output.startswith("farm, version "), out.output
