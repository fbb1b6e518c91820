"""A secret longer than a few hundred characters (a PEM key in ``secrets:``, a service
account's JSON in ``GCP_SA_KEY``): building its mask nested one regex group per character for
a text cut inside it ("…"), and Python's regex parser recursed past its limit, so every farm
command in that environment ended in a RecursionError traceback, before any case. Such a
secret is masked whole, encoded, cased, and cut short, as a short one is."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.suite.vars import Variables
from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

PEM = ("-----BEGIN PRIVATE KEY-----\n" + "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" * 50
       + "\n-----END PRIVATE KEY-----")


def test_a_credential_of_1400_characters_in_the_environment_leaves_farm_working(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(
        "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    monkeypatch.setenv("GCP_SA_KEY", '{"private_key": "' + "ab" * 700 + '"}')
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert (code, err) == (0, counted(1)) and "s/c  [web]" in out


@pytest.mark.parametrize("shown", [PEM, PEM.replace("\n", "\\n"), PEM.upper()])
def test_a_long_secret_is_masked_whole(shown: str) -> None:
    hidden = Variables({"KEY": PEM}, secrets=["KEY"])
    assert hidden.mask(f"the page says {shown}.") == "the page says ***."


@pytest.mark.parametrize("cut", [40, 300, len(PEM) - 1])
def test_a_text_cut_inside_a_long_secret_keeps_none_of_it(cut: int) -> None:
    hidden = Variables({"KEY": PEM}, secrets=["KEY"])
    for spelling in (PEM, PEM.upper(), PEM.lower()):
        assert hidden.mask(f'typed "{spelling[:cut]}…" into Key') == 'typed "***…" into Key'
