"""aiInput into a file input (`aiInput: Avatar`, value: a path) fails naming the way files go
in: aiTap with fileChooserAccept. Before, it said "the focus is on a input[type=file] (a page
that reads keys itself takes them with mode: typeOnly)", a hint that cannot work there. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration


def test_typing_a_path_into_a_file_input_points_to_file_chooser_accept(
        tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(
        "<!doctype html><html><body><label>Avatar <input type='file'></label></body></html>")
    (tmp_path / "photo.png").write_bytes(b"not really")
    (tmp_path / "upload.yaml").write_text(
        "name: upload\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        f"      - aiInput: Avatar\n        value: {tmp_path / 'photo.png'}\n")
    done = farm.run("run", tmp_path / "upload.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    (case,) = results(tmp_path / "run")["cases"]
    assert case["error"] == {
        "kind": "StepFailed", "step": 1,
        "message": "no text field took the text: the focus is on an input[type=file] (a file "
                   "input takes files: aiTap it with fileChooserAccept: <path>)"}, case["error"]


def test_typing_into_a_read_only_field_says_it_takes_no_text(
        tmp_path: Path, farm: FarmCli) -> None:
    """A read-only field (a date shown by a picker, a computed total) refuses the text: the
    failure says so, not that the page may read keys itself (mode: typeOnly types into the
    same read-only field)."""
    (tmp_path / "page.html").write_text(
        "<!doctype html><html><body><label>Total <input readonly value='42'></label>"
        "</body></html>")
    (tmp_path / "total.yaml").write_text(
        "name: total\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Total\n        value: '7'\n")
    done = farm.run("run", tmp_path / "total.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    (case,) = results(tmp_path / "run")["cases"]
    assert case["error"]["message"] == (
        "no text field took the text: the focus is on a read-only input[type=text] (a "
        "read-only field takes no text: a user cannot type there either)"), case["error"]
