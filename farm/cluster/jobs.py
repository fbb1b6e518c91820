"""What travels between `farm run` and a `farm worker`, as plain functions: the task payload
(JSON only), the variables a case may see, matrix expansion, and artifacts coming back."""

from __future__ import annotations

import base64
import re
from dataclasses import asdict, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable

from farm.schedule import Job
from farm.text import map_strings
from farm.suite.model import Case

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def env_for(case: Case, env: dict[str, str], served: Iterable[str] = (),
            names: frozenset[str] | None = None) -> dict[str, str]:
    """Only the variables the case refers to (`referred_names`, or ``names`` when the caller
    has them) and the ones holding a served app's URL (``apps.<name>.env``; ``served``: those
    URLs): nothing else of the client's environment — no other secret, no FARM_*_URL setting
    with its password — travels."""
    names = referred_names(case) if names is None else names
    urls = set(served)
    return {k: v for k, v in env.items() if k in names or v in urls}


def referred_names(case: Case) -> frozenset[str]:
    """The names ``case`` refers to: each ``${NAME}`` of its own text (steps, target, outputs,
    ``agent:``: all but its ``vars:``), each of its ``secrets:``, and, transitively, the names
    in the ``vars:`` values among those. A ``vars:`` entry the case never uses is the suite's,
    not the case's: the secrets its value names (``AUTH_HEADER: "Bearer ${API_TOKEN}"``) are
    not sent with it."""
    units = (case, *case.parts)
    templates: dict[str, str] = {}        # the unit's files may set one name differently
    for each in units:
        for key, value in each.vars.items():
            templates[key] = templates.get(key, "") + " " + value
    names = {name for each in units
             for name in (*_REF.findall(each.model_dump_json(exclude={"vars", "parts"})),
                          *each.secrets)}
    pending = list(names)
    while pending:
        for ref in _REF.findall(templates.get(pending.pop(), "")):
            if ref not in names:
                names.add(ref)
                pending.append(ref)
    return frozenset(names)


def payload(run_id: str, job: Job, case: Case, env: dict[str, str],
            app_dirs: dict[Path, str], cache_mode: str | None = None,
            screenshots: str | None = None, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """``secrets``: the names any case of the run declares secret (`run_secrets`), names
    only: the worker treats each as secret in this case too, as a local run does."""
    names = referred_names(case)
    return {"run_id": run_id, "job": {**asdict(job), "avoid_devices": sorted(job.avoid_devices)},
            "case": _case_sent(case, names), "env": env_for(case, env, app_dirs.values(), names),
            "app_dirs": {str(k): v for k, v in app_dirs.items()}, "cache_mode": cache_mode,
            "screenshots": screenshots, "secrets": sorted(set(secrets))}


def _case_sent(case: Case, names: frozenset[str]) -> dict[str, Any]:
    """The case as its task carries it: its ``vars:`` (and its parts') only the names it refers
    to (``names``, its `referred_names`): a `.env` value a suite var names (``AUTH_HEADER: "Bearer
    ${API_TOKEN}"``, API_TOKEN from .env) is copied into every case's vars at load, and went to
    the workers with cases that never use that var."""
    dumped = case.model_dump(mode="json")
    for unit in (dumped, *(dumped.get("parts") or [])):
        unit["vars"] = {k: v for k, v in (unit.get("vars") or {}).items() if k in names}
    return dumped


def task_reprs(run_id: str, job: Job) -> dict[str, str]:
    """The task message's ``argsrepr`` / ``kwargsrepr`` headers: which attempt, never the
    payload. Celery's own would be the payload's repr (the case's env: its secrets, readable),
    kept in Redis with the message (an append-only file too) and shown by `celery inspect`,
    Flower and a worker's DEBUG log."""
    return {"argsrepr": f"(run {run_id}, case {job.case_id}, attempt {job.attempt})",
            "kwargsrepr": "{}"}


def run_secrets(cases: Iterable[Case]) -> frozenset[str]:
    """The names any case of the run (or file of a shared-context unit) declares in its
    ``secrets:``: a name one suite declares secret is secret in all (`farm.session`'s
    ``_every_secret``): its ``${NAME}`` reaches no model, its value no record, on a worker too."""
    return frozenset(name for case in cases for each in (case, *case.parts)
                     for name in each.secrets)


def masked(data: Any, mask: Callable[[str], str] | None) -> Any:
    """A worker's result or step record (JSON) with every string passed through the client's
    ``mask``: a page, a script or a model may show a credential of the client's that the worker
    was never sent, so never knew to hide."""
    return data if mask is None else map_strings(data, mask)


def read_payload(data: dict[str, Any]) -> tuple[str, Job, Case]:
    job = Job(**{**data["job"], "avoid_devices": frozenset(data["job"]["avoid_devices"])})
    return data["run_id"], job, Case.model_validate(data["case"])


def expand_matrix(jobs: Iterable[Job], cases: dict[str, Case],
                  groups: dict[str, set[str]]) -> tuple[list[Job], dict[str, Case], dict[str, str]]:
    """One job per case and device group of its platform: (jobs, case per job id, pool per
    job id). Each gets its own id (``case@group``) so results, claims and artifacts stay apart."""
    out: list[Job] = []
    by_id: dict[str, Case] = {}
    pools: dict[str, str] = {}
    for j in jobs:
        case = cases[j.case_id]
        for g in sorted(groups.get(j.platform, {j.platform})):
            cid = f"{j.case_id}@{g}"
            by_id[cid] = case.model_copy(update={"id": cid, "name": f"{case.name} [{g}]"})
            pools[cid] = f"{j.platform}.{g}"
            out.append(replace(j, case_id=cid))
    return out, by_id, pools


def encode_artifacts(root: Path) -> dict[str, str]:
    """Screenshots (JPEG) and their marked copies (SVG) under ``root`` as base64, keyed by
    their path relative to it."""
    return {p.relative_to(root).as_posix(): base64.b64encode(p.read_bytes()).decode()
            for p in root.rglob("*") if p.suffix in (".jpg", ".svg") and p.is_file()}


def save_artifacts(run_dir: Path, files: dict[str, str],
                   unwritten: Callable[[Path, Exception], None]) -> None:
    """Write a worker's screenshots under the run's ``artifacts/`` (and nowhere else); one
    that cannot be written (a full disk) goes to ``unwritten``: the case keeps its result."""
    for rel, data in files.items():
        parts = PurePosixPath(rel).parts
        if not parts or parts[0] != "artifacts" or ".." in parts:
            continue
        path = run_dir / Path(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(data))
        except OSError as exc:
            unwritten(path, exc)
