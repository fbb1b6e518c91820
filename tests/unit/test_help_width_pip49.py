"""Every command's --help fits an 80-column terminal (a CI log's, `COLUMNS=80`): `farm run
--help`'s exit codes (a block click does not rewrap) printed three lines of 94 characters,
`farm sim --help` and `farm cache --help` an example line each of 93 and 83."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from farm.cli import cli


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _commands(command, prefix + (name,))
        else:
            found.append(prefix + (name,))
    return found


@pytest.mark.parametrize("command", _commands(cli), ids=lambda c: " ".join(c) or "farm")
def test_help_fits_80_columns_pip49(command: tuple[str, ...]):
    # click wraps help to the terminal's width less 2 (78 at COLUMNS=80); CliRunner forces 80
    # (`click.formatting.FORCED_WIDTH`): the width `farm` itself wraps to is given instead
    done = CliRunner(env={"COLUMNS": "80"}).invoke(cli, [*command, "--help"], terminal_width=78)
    assert done.exit_code == 0, done.output
    wide = [f"{len(line)}: {line}" for line in done.output.splitlines() if len(line) > 79]
    assert wide == []
