"""A suite's warnings name its files and values: a file name holding an escape sequence
(``b\\x1b[31mred.yaml``, not listed by its folder's batch) turned the terminal red in the
warning that named it. Warnings show control characters as escapes, as error lines do."""

from __future__ import annotations

from tests.support.farm_cli import run_main as farm

CASE = ("name: a\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: x\n")


def test_a_warning_naming_a_file_shows_its_escape_sequence_escaped(monkeypatch, capsys,
                                                                   tmp_path):
    (tmp_path / "index.yaml").write_text("files:\n  - a.yaml\n")
    (tmp_path / "a.yaml").write_text(CASE)
    (tmp_path / "b\x1b[31mred.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, out, err = farm(monkeypatch, capsys, "run", str(tmp_path), "--collect-only")
    assert code == 0, out + err
    said = out + err
    assert "b\\x1b[31mred.yaml is in its folder but not in its files:" in said, said
    assert "\x1b" not in said
