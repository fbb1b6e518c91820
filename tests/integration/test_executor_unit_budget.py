"""--max-model-tokens counts every file of a shareBrowserContext batch: the unit's spend was
its worst file's, and a run went on past its budget (local run, the ``fake`` device kind of
the test device plugin, a scripted model server)."""

from __future__ import annotations

from tests.support.agent_scripts import DONE_XML
from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.model_server import Reply
from tests.support.suites import write_case


def test_a_units_files_all_count_against_the_model_budget(tmp_path, farm: FarmCli,
                                                          model_server):
    server = model_server([Reply(DONE_XML, prompt_tokens=1000)])
    batch = tmp_path / "b"
    write_case(batch, "a_first", ["ai: do it"])
    write_case(batch, "b_second", ["ai: do it"])
    (batch / "index.yaml").write_text("continueOnError: true\nshareBrowserContext: true\n"
                                      "files:\n  - a_first.yaml\n  - b_second.yaml\n")
    write_case(tmp_path / "z", "later", ["ai: do it"])      # after the unit (b/ sorts first)
    done = farm.run("run", batch, tmp_path / "z", "--devices", "fake:1", "--report-dir",
                    tmp_path / "run", "--no-progress", "--max-model-tokens", "1500",
                    FARM_DEVICE_PLUGINS=PLUGIN, FARM_MODEL="openai/scripted",
                    FARM_MODEL_BASE_URL=server.base_url, FARM_MODEL_API_KEY="sk-test")
    assert done.returncode == 3, done.stdout + done.stderr
    statuses = {c["case_id"]: c["status"] for c in results(tmp_path / "run")["cases"]}
    assert statuses == {"b/a_first": "passed", "b/b_second": "passed",
                        "z/later": "skipped"}, statuses
    assert len(server.requests) == 2
    assert "model budget (--max-model-tokens 1500) was spent" in done.stdout
