"""A Midscene migration's suite mistakes farm must say before a run, every one at once: two
cases writing one `output:` file (one case's results were lost, unsaid: the last to end won),
and a `bridgeMode` that hid the other refused keys of its `web:` section."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main


def case(folder: Path, stem: str, outputs: str) -> None:
    (folder / f"{stem}.yaml").write_text(
        "web:\n  url: http://127.0.0.1:9/index.html\n" + outputs +
        "tasks:\n  - name: t\n    flow:\n      - javascript: \"'from " + stem + "'\"\n"
        "        name: who\n")


def test_two_cases_writing_one_output_file_are_refused_naming_both(
        tmp_path: Path, monkeypatch, capsys) -> None:
    case(tmp_path, "o1", "  output: ./out/result.json\n")
    case(tmp_path, "o2", "  output: out/../out/result.json\n")
    case(tmp_path, "o3", "  output: ./out/o3.json\n  unstableLogContent: ./out/o3.json\n")
    case(tmp_path, "o4", "  output: ./out/o4.json\n  unstableLogContent: ./out/log4.json\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--collect-only", "-v", ".")
    assert code == 4, out + err
    assert "2 problems" in err, err
    assert ("o2.yaml:3:11: web.output 'out/../out/result.json': o1.yaml:3:11 (web.output, "
            "case ") in err, err
    assert "the other's results are lost; give each its own file name" in err
    assert ("o3.yaml:4:23: web.unstableLogContent './out/o3.json': this case's web.output "
            "(o3.yaml:3:11) writes the same file") in err, err
    assert "o4.yaml" not in err


def test_distinct_output_files_load(tmp_path: Path, monkeypatch, capsys) -> None:
    case(tmp_path, "o1", "  output: ./out/one.json\n")
    case(tmp_path, "o2", "  output: ./out/two.json\n")
    case(tmp_path, "o3", "  output: ./out/${WHO}.json\n")
    case(tmp_path, "o4", "  output: ./out/${WHO}.json\n")     # only known at the end
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WHO", "x")
    code, out, err = run_main(monkeypatch, capsys, "run", "--collect-only", ".")
    assert code == 0, out + err


def test_config_output_and_a_section_output_of_two_cases_collide(
        tmp_path: Path, monkeypatch, capsys) -> None:
    case(tmp_path, "o1", "  output: ./out/r.json\n")
    (tmp_path / "o2.yaml").write_text(
        "config:\n  output: ./out/r.json\nweb:\n  url: http://127.0.0.1:9/\n"
        "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--collect-only", ".")
    assert code == 4, out + err
    assert "o2.yaml:2:11: config.output './out/r.json': o1.yaml:3:11 (web.output" in err, err


def test_bridge_mode_does_not_hide_the_sections_other_refused_keys(
        tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "multi.yaml").write_text(
        "web:\n  url: http://127.0.0.1:9/index.html\n  bridgeMode: newTabWithUrl\n"
        "  closeNewTabsAfterDisconnect: true\n  cdpEndpoint: ws://127.0.0.1:9222/x\n"
        "  downloadPath: ./dl\n  viewportWidht: 3\n"
        "tasks:\n  - name: t\n    flow:\n      - aiTap: Add\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--collect-only", "multi.yaml")
    assert code == 4, out + err
    assert "5 problems" in err, err
    for where in ("multi.yaml:3:15: web.bridgeMode", "multi.yaml:4:3: web.closeNewTabs",
                  "multi.yaml:5:3: web.cdpEndpoint", "multi.yaml:6:3: web.downloadPath",
                  "multi.yaml:7:3: "):
        assert where in err, err
