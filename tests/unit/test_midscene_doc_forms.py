"""Forms Midscene's docs show users writing that farm deliberately does not run: each is refused
at its file:line:col as not supported, saying why, never as a misspelling of another key."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

# AndroidDevice / IOSDevice options Midscene's YAML docs say a script's android: / ios: may set
# (android.mdx shows `android: {screenshotStrategy: always-yadb}` for FLAG_SECURE pages).
DEVICE_OPTIONS = [
    ("android", "screenshotStrategy", "always-yadb", "no yadb capture"),
    ("android", "scrcpyConfig", "{enabled: true}", "no scrcpy stream"),
    ("android", "keyboardTypeDelay", "50", "no delay between keys"),
    ("android", "minScreenshotBufferSize", "0", "checks that it is a PNG"),
    ("android", "exposeRunAdbShellAction", "false", "cannot hide it"),
    ("android", "screenshotResizeScale", "0.5", "Midscene removed it"),
    ("ios", "keyboardTypeDelay", "50", "no delay between keys"),
    ("ios", "sessionId", "abc-123", "a WebDriverAgent session of its own"),
    ("ios", "wdaMjpegPort", "9101", "no MJPEG stream"),
    ("ios", "wdaMjpegFrameSource", "{enabled: true}", "no MJPEG stream"),
    ("ios", "iOSDeviceClassOverride", "./my-device.js", "its own WebDriverAgent client"),
]


def _problem(tmp_path, text: str):
    path = tmp_path / "case.yaml"
    path.write_text(text)
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={})
    [err] = info.value.errors
    return err


@pytest.mark.parametrize("platform, key, value, why", DEVICE_OPTIONS,
                         ids=[f"{p}.{k}" for p, k, _, _ in DEVICE_OPTIONS])
def test_a_documented_device_option_is_refused_as_unsupported(tmp_path, platform, key, value,
                                                              why) -> None:
    err = _problem(tmp_path, f"{platform}:\n  launch: com.example.app\n  {key}: {value}\n"
                             "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    assert (err.line, err.column) == (3, 3), str(err)
    assert err.message.startswith(f"{platform}.{key} is not supported by farm: ")
    assert why in err.message and "did you mean" not in err.message


def test_a_batch_files_shared_device_option_is_refused_the_same_way(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text("android:\n  launch: com.example.app\ntasks:\n"
                                     "  - name: t\n    flow:\n      - sleep: 1\n")
    (tmp_path / "index.yaml").write_text("android:\n  screenshotStrategy: always-yadb\n"
                                         "files:\n  - a.yaml\n")
    with pytest.raises(SuiteErrors) as info:
        load_suites([tmp_path / "index.yaml"], env={})
    [err] = info.value.errors
    assert (err.line, err.column) == (2, 3), str(err)
    assert "android.screenshotStrategy is not supported by farm" in err.message


def test_a_gherkin_scenario_step_is_refused_with_what_to_write_instead(tmp_path) -> None:
    """The docs' BDD example (advanced/bdd-style-scripts-with-gherkin.mdx)."""
    err = _problem(tmp_path, "web:\n  url: http://localhost:3000/todos\n\ntasks:\n"
                             "  - name: Add a todo item\n    flow:\n"
                             "      - runGherkinScenario: |\n"
                             "          Scenario: Add a todo item\n"
                             "            Given the todo page is open\n"
                             "            Then the todo list should contain \"Buy milk\"\n")
    assert (err.line, err.column) == (7, 9), str(err)
    assert err.message.startswith("unknown step kind 'runGherkinScenario' (not supported by "
                                  "farm, which reads no Gherkin")
    assert "`aiAssert:` for each Then" in err.message and "expected one of" not in err.message
