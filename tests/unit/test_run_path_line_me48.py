"""`farm run file.yaml:LINE` runs that file's case; a line past the file's end, or a line of a
batch file (which names no one case), is a usage mistake said as such (exit 4), not the whole
file or batch run without a word."""

from __future__ import annotations

from tests.support.farm_cli import run_main

CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_a_line_past_the_end_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s/a.yaml:999", "--collect-only")
    assert code == 4 and "s/a.yaml has 7 line(s)" in err, err
    code, out, err = run_main(monkeypatch, capsys, "run", "s/a.yaml:5", "--collect-only")
    assert code == 0 and "1 case(s) collected" in err and "collected" not in out, out + err


def test_a_line_of_a_batch_file_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(CASE)
    (tmp_path / "s" / "index.yaml").write_text("files:\n  - a.yaml\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s/index.yaml:2", "--collect-only")
    assert code == 4 and "is a batch file: its lines name no one case" in err, err
