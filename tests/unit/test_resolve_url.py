
from farm.config import Settings
from farm.results import ArtifactStore
from farm.runner import Services, resolve_url
from farm.suite.model import Case, Task, WebTarget, Step


def _case(tmp_path):
    return Case(id="s/c", name="c", file=tmp_path / "suite" / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="x"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


def test_relative_path_inside_a_served_app_becomes_its_url(tmp_path):
    app = tmp_path / "suite" / "app"
    app.mkdir(parents=True)
    svc = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r", env={},
                   app_dirs={app: "http://127.0.0.1:4321"})
    case = _case(tmp_path)
    assert resolve_url("app/cart.html?x=1#top", case, svc) == \
        "http://127.0.0.1:4321/cart.html?x=1#top"
    assert resolve_url("other/page.html", case, svc) == \
        (tmp_path / "suite" / "other" / "page.html").resolve().as_uri()
    assert resolve_url("https://example.test/a", case, svc) == "https://example.test/a"
    assert resolve_url("about:blank", case, svc) == "about:blank"
