"""`farm config show` names the line of each setting given in an inline table or as a dotted
key of pyproject.toml (``[tool]`` then ``farm = {retries = 2}``, ``tool = {farm = {…}}``,
``farm.retries = 2``): it printed ``pyproject.toml [tool.farm]`` with no line for them, while
a key under a ``[tool.farm]`` header got its ``pyproject.toml:LINE``."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def _where(out: str) -> dict[str, str]:
    """The "where set" lines of `farm config show`, by setting."""
    tail = out.split("\nwhere set", 1)[1].splitlines()[1:]
    return dict(line.split(None, 1) for line in tail if line.startswith("  "))


@pytest.mark.parametrize("pyproject, retries_line, timeout_line", [
    ('[project]\nname = "x"\n\n[tool]\nfarm = {retries = 2, default_timeout = 30}  # CI\n', 5, 5),
    ('tool = {black = {line-length = 99}, farm = {retries = 2, default_timeout = 30}}\n'
     '[project]\nname = "x"\n', 1, 1),
    ('[project]\nname = "x"\n[tool]\nblack.line-length = 99\nfarm.retries = 2\n'
     '"farm" . default_timeout = 30\n', 5, 6),
    ('[tool.black]\nretries = 7\n[[tool.other]]\ndefault_timeout = 5\n[tool.farm]\n'
     'retries = 2\ndefault_timeout = 30\n', 6, 7),
])
def test_a_setting_in_an_inline_table_or_dotted_key_has_its_line(
        tmp_path, monkeypatch, capsys, pyproject, retries_line, timeout_line):
    (tmp_path / "pyproject.toml").write_text(pyproject)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert _where(out) == {"retries": f"pyproject.toml:{retries_line} [tool.farm]",
                           "default_timeout": f"pyproject.toml:{timeout_line} [tool.farm]"}


def test_an_unknown_setting_in_an_inline_table_is_blamed_on_its_line(tmp_path, monkeypatch, capsys):
    """It said `pyproject.toml [tool.farm]: unknown setting` with no line."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool]\n'
                                             'farm = {retries = 2, retriess = 3}\n')
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4, out
    assert "pyproject.toml:4 [tool.farm]: unknown setting 'retriess'" in err


@pytest.mark.parametrize("pyproject, line", [
    ('[project]\nname = "x"\n[tool.farm]\nretries = 1\ndevices = {browser = 2}\n', 5),
    ('[project]\nname = "x"\n[tool]\nfarm = {retries = 1, devices = {browser = 2}}\n', 4),
])
def test_a_run_flag_given_as_an_inline_table_is_named_with_its_line(
        tmp_path, monkeypatch, capsys, pyproject, line):
    """`devices = {browser = 2}` was said as 'pyproject.toml [tool.farm]: unknown setting
    'devices' (a [tool.farm.devices] table …)': no line, and no word of --devices."""
    (tmp_path / "pyproject.toml").write_text(pyproject)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, out) == (4, "")
    assert err == (f"farm: error: cannot read configuration: pyproject.toml:{line} [tool.farm]: "
                   "unknown setting 'devices' (--devices is a flag of `farm run`, given on the "
                   "command line each run, not a setting)\n")
