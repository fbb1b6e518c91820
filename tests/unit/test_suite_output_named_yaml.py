"""A JSON output named `*.yaml` (`output: login.yaml`, `unstableLogContent: log.yml`, a batch's
`summary: summary.yaml`) is a suite error at its file:line: the run wrote its JSON over what was
there (a case file, lost: `{}` left in it), and the next run of the folder read it as a case."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

SAID = ("names a YAML file: farm writes JSON there, over what it holds (a case?), and a later "
        "run would read it as a case: name a .json file")
STEPS = "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _problems(path) -> list[str]:
    with pytest.raises(SuiteErrors) as caught:
        load_suites([path], env={}, warnings=[])
    return [f"{e.line}:{e.column} {e.message}" for e in caught.value.errors]


def test_a_case_output_or_log_named_yaml_is_refused(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_text(f"web:\n  url: about:blank\n  output: login.yaml\n"
                    f"  unstableLogContent: out/log.YML\n{STEPS}")
    assert _problems(case) == [f"3:11 web.output: 'login.yaml' {SAID}",
                               f"4:23 web.unstableLogContent: 'out/log.YML' {SAID}"]


def test_a_batch_summary_named_yaml_is_refused(tmp_path):
    (tmp_path / "c.yaml").write_text(f"web:\n  url: about:blank\n{STEPS}")
    batch = tmp_path / "index.yaml"
    batch.write_text("files:\n  - c.yaml\nsummary: summary.yaml\n")
    assert _problems(batch) == [f"3:10 summary: 'summary.yaml' {SAID}"]


def test_json_outputs_load(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_text(f"web:\n  url: about:blank\n  output: out/c.json\n"
                    f"  unstableLogContent: true\n{STEPS}")
    [suite] = load_suites([case], env={}, warnings=[])
    assert (suite.cases[0].output, suite.cases[0].log_content) == ("out/c.json",
                                                                   "unstableLogContent.json")
