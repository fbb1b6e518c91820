"""A case whose ``url:`` names a folder (``url: ../reg/app``) opened Chromium's listing of
it, and the failure blamed that page's scripts; a served folder with no index.html opened
the server's 404 page. Each now fails as a missing page does: once, naming the folder, and
its index.html when it has one. Real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

FLOW = "tasks:\n  - name: t\n    flow:\n      - assertText: Reg App\n"


def test_a_url_naming_a_folder_fails_once_and_names_its_index(farm: FarmCli,
                                                               tmp_path: Path) -> None:
    suite = tmp_path / "s"
    (suite / "app" / "empty").mkdir(parents=True)
    (suite / "app" / "index.html").write_text("<h1>Reg App</h1>")
    (suite / "dir.yaml").write_text("web:\n  url: ./app\n" + FLOW)
    (suite / "bare.yaml").write_text("web:\n  url: ./app/empty\n" + FLOW)
    (suite / "served.yaml").write_text("web:\n  serve: app\n  url: empty/\n" + FLOW)
    (suite / "good.yaml").write_text("web:\n  serve: app\n  url: /\n" + FLOW)
    done = farm.run("run", suite, "--retries", "1", "--no-progress",
                    "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    folder = (suite / "app").as_uri()
    assert cases["s/dir"]["error"]["message"] == (
        f"cannot open {folder}: it is a folder; did you mean {folder}/index.html?")
    assert cases["s/bare"]["error"]["message"] == (
        f"cannot open {folder}/empty: it is a folder, with no index.html in it: "
        "name the page to open")
    served = cases["s/served"]["error"]["message"]
    assert served.startswith("cannot open http://") and served.endswith(
        "/empty/: it is a folder, with no index.html in it: name the page to open")
    for name in ("s/dir", "s/bare", "s/served"):
        assert cases[name]["status"] == "failed"
        assert not cases[name].get("previous"), cases[name]      # one attempt
        assert cases[name]["reason"].startswith(
            "not retried: a page that is a folder is not retried"), cases[name]
    assert cases["s/good"]["status"] == "passed", cases["s/good"]
