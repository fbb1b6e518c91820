"""``secrets: [pw]`` beside ``vars: {PW: …}`` (or an environment's PW) masked nothing: secret
names match exactly, so the password showed in the log, results and report while the suite
looked as if it declared it secret. The load now warns at the name, naming the variable."""

from __future__ import annotations

from pathlib import Path

from farm.suite.loader import load_suites

CASE = ("name: c\n{extra}web:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Password\n        value: ${{PW}}\n")


def _warnings(tmp_path: Path, suite: str, extra: str = "", env=None) -> list[str]:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "farm.yaml").write_text(suite)
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(extra=extra))
    warnings: list[str] = []
    load_suites([tmp_path / "s"], env=env or {}, dotenv=None, warnings=warnings)
    return [w.rsplit("/", 1)[-1] for w in warnings]


def test_a_secret_named_in_another_casing_is_warned_about(tmp_path):
    said = _warnings(tmp_path, "secrets: [pw]\nvars:\n  PW: hunter2-pass\n",
                     extra="secrets: [Api_Key]\n", env={"API_KEY": "k" * 20})
    assert said == [
        "farm.yaml:1:11: secrets: no variable is named 'pw' (did you mean PW? names match "
        "exactly, and only a secret's value is masked)",
        "c.yaml:2:11: secrets: no variable is named 'Api_Key' (did you mean API_KEY? names "
        "match exactly, and only a secret's value is masked)"]


def test_an_exact_name_or_one_set_nowhere_is_not(tmp_path):
    assert _warnings(tmp_path, "secrets: [PW, LATER_SET]\nvars:\n  PW: hunter2-pass\n") == []
