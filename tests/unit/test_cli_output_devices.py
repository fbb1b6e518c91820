"""An output flag naming a device, a FIFO or a link to an open file (``--junit-xml
/dev/null``, ``/dev/stdout``): farm writes an output whole into a new file it renames over
the path, so such a run replaced /dev/null itself with a file holding the JUnit XML (run as
root, every later ``> /dev/null`` on the machine wrote into it). Refused before anything runs,
naming the flag (exit 4); the device is left as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from farm.cli import _not_a_device
from farm.errors import UserError
from tests.support.farm_cli import run_main


def test_a_fifo_given_as_the_history_page_is_refused_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "page")
    code, _, err = run_main(monkeypatch, capsys, "report", "--history", "--out", "page")
    assert code == 4
    assert err.splitlines() == [
        "farm: error: --out page: a FIFO (named pipe), not a file: farm writes the history page "
        "into a new file it renames over page, which would replace it; give a file name (or "
        "leave --out out)"]
    assert stat.S_ISFIFO(os.lstat(tmp_path / "page").st_mode)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/stdout", "/dev/stderr"])
def test_the_devices_a_shell_user_names_are_refused(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    with pytest.raises(UserError) as refused:
        _not_a_device(Path(device), "--junit-xml", "the run's JUnit XML")
    # /dev/stdout leads to a terminal, a pipe or a file: a device, a FIFO, or a link to a file
    kind = str(refused.value).removeprefix(f"--junit-xml {device}: ").split(", not a file")[0]
    assert kind in ("a character device", "a FIFO (named pipe)",
                    "a link to an open file (as /dev/stdout is)")
    assert str(refused.value).endswith(f"renames over {device}, which would replace it; give "
                                       "a file name (or leave --junit-xml out)")


def test_a_file_a_link_to_one_and_a_new_name_are_written_as_before(tmp_path: Path) -> None:
    (tmp_path / "old.xml").write_text("<testsuites/>")
    (tmp_path / "link.xml").symlink_to(tmp_path / "old.xml")
    for name in ("old.xml", "link.xml", "new.xml"):
        _not_a_device(tmp_path / name, "--junit-xml", "the run's JUnit XML")
