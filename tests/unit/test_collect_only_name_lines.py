"""`farm run --collect-only` lists one case a line: a case name with a line break (a YAML
block, `name: "a\\nb"`) split its line in two, and a tool reading the list took the second
half for a case of its own."""

from __future__ import annotations

from tests.support.farm_cli import run_main as farm


def test_a_name_with_a_line_break_stays_on_its_case_s_line(monkeypatch, capsys, tmp_path):
    (tmp_path / "a.yaml").write_text('name: "first line\\nsecond\\r"\nweb:\n'
                                     "  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
                                     "    flow:\n      - assertText: x\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = farm(monkeypatch, capsys, "run", str(tmp_path), "--collect-only")
    assert code == 0, out + err
    listed = [line for line in out.splitlines() if not line.startswith("farm: ")]
    assert len(listed) == 1, out
    assert "first line\\nsecond\\r  (" in listed[0], out
