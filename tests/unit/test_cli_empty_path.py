"""An empty path given to farm (`--report-dir "$DIR"` with DIR unset) is refused, exit 4: click
read "" as "." and the run wrote its report into the working directory (with --overwrite it
removed farm's files and any artifacts/ folder there); `farm run "$SUITE"` ran everything under
the working directory."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.mark.parametrize("args, said", [
    (["run", "s", "--report-dir", ""], "Invalid value for '--report-dir': an empty path (an "
     "unset variable, as in \"$DIR\"?): give one, or leave the option out"),
    (["run", "s", "--junit-xml", " "], "Invalid value for '--junit-xml': an empty path"),
    (["run", "s", "--alluredir", ""], "Invalid value for '--alluredir': an empty path"),
    (["run", ""], "Invalid value for 'PATHS...': an empty path (an unset variable, as in "
     "\"$DIR\"?): give one\n"),
    (["report", "--history", "--out", ""], "Invalid value for '--out': an empty path"),
])
def test_an_empty_path_is_refused_and_nothing_is_written(tmp_path, monkeypatch, capsys, args,
                                                        said):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text("name: c\nweb:\n  url: about:blank\ntasks:\n"
                                           "  - name: t\n    flow:\n      - sleep: 1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert (code, out) == (4, "")
    assert said in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]
