"""A Ctrl-C that comes while a step runs, the step then ending by its own timeout before the
stop reaches it (a `javascript` step's promise that never settles, its timeout a moment
later): the case was in flight at the stop, so it ends interrupted (exit 2), as README says
of in-flight cases. It ended FAILED ("javascript did not finish within 3s") and the run said
the stop came after the last case had ended, exit 1."""

from pathlib import Path

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.results import ArtifactStore
from farm.runner import INTERRUPTED, Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget


def test_a_step_that_fails_by_itself_after_the_stop_leaves_its_case_interrupted(tmp_path):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})

    def stopped_then_timed_out(device):
        services.cancel.set()               # Ctrl-C, while the page's promise hangs
        raise StepFailed("javascript did not finish within 3s")
    device = FakeDevice(name="browser-1", scripts={"hang": stopped_then_timed_out})
    case = Case(id="s/js", name="js", file=Path("/tmp/js.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"), timeout=60,
                tasks=[Task(name="t", steps=[Step(kind="javascript", value="hang", line=6),
                                             Step(kind="assertText", value="x", line=8)])])
    device.open()
    result = run_case(Job(case.id, "web", 1.0), case, device, services)
    assert (result.status, result.reason) == ("interrupted", INTERRUPTED), result.error
    assert [s.status for s in result.steps] == ["interrupted", "skipped"]
