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


class Pushgateway:
    """Debian's prometheus-pushgateway on a free port, holding pushes in memory only: Debian's
    default ``--persistence.file`` (/var/lib/prometheus/pushgateway.data) would give a new
    gateway every earlier one's groups, and tests running at once one shared file."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(tmp) / "pushgateway.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Pushgateway":
        log = self.log_path.open("w")
        self.proc = subprocess.Popen([PUSHGATEWAY, f"--web.listen-address=127.0.0.1:{self.port}",
                                      "--persistence.file="], stdout=log, stderr=subprocess.STDOUT)
        log.close()

        def ready() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError("pushgateway exited:\n" + self.log_path.read_text())
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as r:
                    return r.status == 200
            except (urllib.error.URLError, OSError):
                return False
        wait_for(ready, 60, f"pushgateway ready on :{self.port}")
        return self

    def exposition(self) -> str:
        with urllib.request.urlopen(self.url + "/metrics", timeout=30) as r:
            return r.read().decode()

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

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


class NodeExporter:
    """Debian's prometheus-node-exporter on a free port with only its textfile collector,
    reading ``textfiles`` (where a `farm run`'s metrics.prom would be copied)."""

    def __init__(self, tmp: Path, textfiles: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.textfiles = textfiles
        self.log_path = Path(tmp) / "node-exporter.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> "NodeExporter":
        log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{self.port}",
             "--collector.disable-defaults", "--collector.textfile",
             f"--collector.textfile.directory={self.textfiles}"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()

        def ready() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError("node_exporter exited:\n" + self.log())
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as r:
                    return r.status == 200
            except (urllib.error.URLError, OSError):
                return False
        wait_for(ready, 60, f"node_exporter ready on :{self.port}")
        return self

    def exposition(self) -> str:
        """One scrape (node_exporter logs what it could not gather before it answers)."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=30) as r:
            return r.read().decode()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


class Prometheus:
    def __init__(self, tmp: Path, jobs: dict[str, list[str]], rules: list[Path] = (),
                 interval: str = "1s") -> None:
        self.dir = Path(tmp) / "prometheus"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = {"global": {"scrape_interval": interval, "evaluation_interval": interval},
                  "rule_files": [str(r) for r in rules],
                  "scrape_configs": [{"job_name": job, "static_configs": [{"targets": targets}]}
                                     for job, targets in jobs.items()]}
        (self.dir / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Prometheus":
        log = (self.dir / "prometheus.log").open("w")
        self.proc = subprocess.Popen(
            [BINARY, f"--config.file={self.dir / 'prometheus.yml'}",
             f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for(self._ready, 60, f"prometheus ready on :{self.port}")
        return self

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError("prometheus exited:\n" + self.log())
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def log(self) -> str:
        return (self.dir / "prometheus.log").read_text(errors="replace")

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

    def targets_up(self) -> dict[str, str]:
        return {t["scrapeUrl"]: t["health"] for t in self.api("targets")["activeTargets"]}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
