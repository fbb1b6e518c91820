"""A phone reads its UI tree for its images' secrets only when its case refers to a secret
(`farm.runner.refers_to_secret`): one its steps type or name (a credential-named variable, a
secrets-dir value, a variable made of one), or one its suite declares under ``secrets:``.
farm's model key and a CI runner's GITHUB_TOKEN the case does not name are no secret of its:
each tree read costs a real phone ~1 s a screenshot. Real loader, real Variables."""

from __future__ import annotations

from pathlib import Path

from farm.runner import refers_to_secret
from farm.suite.loader import load_suites
from farm.suite.vars import Variables

# a CI runner's environment: farm's model key, the runner's token, a password of the app's
ENV = {"FARM_MODEL_API_KEY": "sk-test-0123456789abcdef0123",
       "GITHUB_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ",
       "LOGIN_PASSWORD": "Hunter2-Secret!"}
KEYS = {"FARM_MODEL_API_KEY": ENV["FARM_MODEL_API_KEY"]}

CASE = """\
android:
  launch: com.qa.lab
{extra}tasks:
  - name: sign in
    flow:
      - aiInput: Password
        value: {value}
      - aiTap: Sign in
"""


def _refers(tmp: Path, value: str, extra: str = "", suite: str = "",
            secrets_dir: Path | None = None) -> bool:
    folder = tmp / "s"
    folder.mkdir(exist_ok=True)
    (folder / "lab.yaml").write_text(CASE.format(value=value, extra=extra))
    if suite:
        (folder / "farm.yaml").write_text(suite)
    case = load_suites([folder], env=ENV, secrets_dir=secrets_dir)[0].cases[0]
    variables = Variables.from_sources(defaults=case.vars, env=ENV, provided=KEYS,
                                       secrets_dir=secrets_dir,
                                       secrets={*case.secrets, *KEYS})
    assert variables.hides          # (the run has secrets: the model key, the token)
    return refers_to_secret(case, variables)


def test_a_case_naming_no_secret_reads_no_tree_whatever_the_environment_holds(tmp_path):
    assert not _refers(tmp_path, "plain words")


def test_a_credential_named_variable_a_step_types_is_a_secret_of_its(tmp_path):
    assert _refers(tmp_path, "${LOGIN_PASSWORD}")


def test_a_variable_made_of_a_secret_is_one(tmp_path):
    assert _refers(tmp_path, "${CRED}", extra="vars:\n  CRED: ${LOGIN_PASSWORD}\n")


def test_a_secrets_dir_value_a_step_types_is_one(tmp_path):
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "PIN_CODE").write_text("7391-2284-5512\n")
    assert _refers(tmp_path, "${PIN_CODE}", secrets_dir=secrets)
    assert not _refers(tmp_path, "plain words", secrets_dir=secrets)     # (not named)


def test_a_secret_the_suite_declares_is_one_of_its_cases(tmp_path):
    assert _refers(tmp_path, "plain words", suite="secrets: [LOGIN_PASSWORD]\n")


def test_farm_s_model_key_named_by_a_step_is_one(tmp_path):
    assert _refers(tmp_path, "${FARM_MODEL_API_KEY}")
