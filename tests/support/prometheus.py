"""A real Prometheus (Debian's /usr/bin/prometheus) on a free port with a temporary config,
and its HTTP API.

    prom = Prometheus(tmp_path, {"farm-workers": ["127.0.0.1:9464"]}, rules=[ALERTS]).start()
    prom.query('sum(farm_cases_total)')          # the API's "result" list
    prom.stop()
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from tests.support.farm_cli import wait_for
from tests.support.redis_server import free_port

BINARY = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
PUSHGATEWAY = shutil.which("prometheus-pushgateway") or "/usr/bin/prometheus-pushgateway"
NODE_EXPORTER = shutil.which("prometheus-node-exporter") or "/usr/bin/prometheus-node-exporter"


class PromQLError(AssertionError):
    pass


class Daemon:
    """A server binary on a free loopback port, its output in ``log_path``: started (`argv`),
    waited for until ``ready_path`` answers 200 (it exiting first fails the test with its
    log), stopped with SIGTERM (SIGKILL when it will not stop)."""

    name = "daemon"
    ready_path = "/-/ready"

    def __init__(self, log_path: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None

    def argv(self) -> list[str]:
        raise NotImplementedError

    def start(self):
        with self.log_path.open("w") as log:
            self.proc = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT)
        wait_for(self._ready, 60, f"{self.name} ready on :{self.port}")
        return self

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"{self.name} exited:\n" + self.log())
        try:
            with urllib.request.urlopen(self.url + self.ready_path, timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def exposition(self) -> str:
        """One scrape of its own /metrics."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=30) as r:
            return r.read().decode()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class Pushgateway(Daemon):
    """Debian's prometheus-pushgateway on a free port, holding pushes in memory only: Debian's
    default ``--persistence.file`` (/var/lib/prometheus/pushgateway.data) would give a new
    gateway every earlier one's groups, and tests running at once one shared file."""

    name = "pushgateway"

    def __init__(self, tmp: Path) -> None:
        super().__init__(Path(tmp) / "pushgateway.log")

    def argv(self) -> list[str]:
        return [PUSHGATEWAY, f"--web.listen-address=127.0.0.1:{self.port}",
                "--persistence.file="]

    def held(self, job: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """The samples the gateway holds for ``job``: (name, sorted labels other than job and
        instance) → value."""
        from prometheus_client.parser import text_string_to_metric_families
        out = {}
        for family in text_string_to_metric_families(self.exposition()):
            for s in family.samples:
                labels = dict(s.labels)
                if labels.pop("job", None) == job:
                    labels.pop("instance", None)
                    out[(s.name, tuple(sorted(labels.items())))] = s.value
        return out


class NodeExporter(Daemon):
    """Debian's prometheus-node-exporter on a free port with only its textfile collector,
    reading ``textfiles`` (where a `farm run`'s metrics.prom would be copied). Its scrape
    logs what it could not gather before it answers."""

    name, ready_path = "node_exporter", "/"

    def __init__(self, tmp: Path, textfiles: Path) -> None:
        super().__init__(Path(tmp) / "node-exporter.log")
        self.textfiles = textfiles

    def argv(self) -> list[str]:
        return [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{self.port}",
                "--collector.disable-defaults", "--collector.textfile",
                f"--collector.textfile.directory={self.textfiles}"]


class Prometheus(Daemon):
    name = "prometheus"

    def __init__(self, tmp: Path, jobs: dict[str, list[str]], rules: list[Path] = (),
                 interval: str = "1s") -> None:
        self.dir = Path(tmp) / "prometheus"
        super().__init__(self.dir / "prometheus.log")
        config = {"global": {"scrape_interval": interval, "evaluation_interval": interval},
                  "rule_files": [str(r) for r in rules],
                  "scrape_configs": [{"job_name": job, "static_configs": [{"targets": targets}]}
                                     for job, targets in jobs.items()]}
        (self.dir / "prometheus.yml").write_text(yaml.safe_dump(config))

    def argv(self) -> list[str]:
        return [BINARY, f"--config.file={self.dir / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"]

    def api(self, path: str, **params: str) -> Any:
        url = f"{self.url}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                body = json.loads(r.read())
        except urllib.error.HTTPError as exc:
            body = json.loads(exc.read() or b"{}")
        if body.get("status") != "success":
            raise PromQLError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """An instant query's result (vector samples: ``{"metric": {...}, "value": [t, v]}``)."""
        data = self.api("query", query=expr)
        return data["result"] if data["resultType"] == "vector" else [data["result"]]

    def values(self, expr: str, by: str) -> dict[str, float]:
        """label ``by`` → value of an instant vector query."""
        return {s["metric"].get(by, ""): float(s["value"][1]) for s in self.query(expr)}

    def scraped_since(self, job: str, since: float) -> bool:
        """Whether every target of ``job`` answered a scrape made after ``since`` (epoch
        seconds). Prometheus 2.42 may start a target's first scrape seconds after another's
        of the same job: until then an instant query has none of its series."""
        targets = [t for t in self.api("targets")["activeTargets"]
                   if t["labels"].get("job") == job]
        return bool(targets) and all(
            t["health"] == "up" and datetime.fromisoformat(t["lastScrape"]).timestamp() > since
            for t in targets)
