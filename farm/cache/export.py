"""``farm cache export``: a solved case as a YAML flow file that runs with no model at all
(the seeds' script compilation).

Every ``ai`` step becomes the steps its cached plan holds (``aiTap``, ``aiInput``, …), each
target keeping its prompt and gaining the cached XPath (the XPath tier answers first; when the
app changed, the UI-tree text match still can). Other steps are written as they were. The
entries are looked up in the order a run uses them: the n-th use of a prompt is its n-th entry,
under the prompt as the run keys it: its variables expanded as the model reads them (a secret's
``${NAME}`` kept), from the same environment, secrets dir and ``vars:`` (with ``.env``'s). The
export keeps ``${NAME}`` as written and says in its header which values an entry was made
with. An ai step with ``cacheable: false`` has no plan: it is kept as written (it needs a
model), as is a step that always asks one (aiAssert, aiQuery, …): the header names them.
A run directory stands for its passed cases (`run_cases`), found from any working
directory; `farm.cache.run_store` finds the store it used. `refuse_poorer` keeps an earlier
export that holds more XPaths than a new one would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping

import yaml

from farm.agent.images import images_key
from farm.cache.keys import Namespace, app_version, context_key, withheld_key
from farm.cache.store import CacheStore
from farm.errors import ConfigError, FarmError, UserError
from farm.suite.batch import SOLVED_SUFFIX
from farm.suite.kinds import KINDS
from farm.suite.model import Case, Step
from farm.suite.targets import MOBILE_SECTIONS, WEB_SECTIONS
from farm.suite.vars import Variables, model_text

# action name → the step kind that runs it (aiTap runs Tap, ...): the inverse of KINDS
_KIND_OF = {spec.action: name for name, spec in reversed(list(KINDS.items())) if spec.action}


class _Uses:
    """Entry lookups in run order (the n-th use of a prompt is its n-th entry), each under
    its prompt as the run keys it (`keyed`); ``notes`` collects what the header says."""

    def __init__(self, store: CacheStore, ns: Namespace, variables: Variables) -> None:
        self.store, self.ns, self.variables = store, ns, variables
        self.n: dict[tuple[str, str], int] = {}
        self.values: dict[str, str] = {}     # variables the current step's lookups expanded
        self.notes: list[str] = []
        self.kept = 0                        # ai steps kept as written (cacheable: false)
        self.needs: list[str] = []           # other steps that always ask a model (aiAssert)
        self.key = ""                        # the last entry looked up

    def keyed(self, text: str) -> str:
        """``text`` as the model reads it (`farm.agent.api.Agent.for_model`), the run's key."""
        return model_text(text, self._shown)

    def _shown(self, name: str, reference: str) -> str | None:
        from farm.config import environment_secrets
        try:
            value = self.variables.resolve(reference)
        except FarmError:           # not set here: the run read it as written too
            return None
        if self.variables.mask(value) != value or environment_secrets({name: value}):
            return None             # a secret: its placeholder is the key, never its value
        self.values[name] = value
        return value

    def next(self, kind: str, prompt: str, suffix: str = "") -> dict[str, Any] | None:
        text = self.keyed(prompt) + suffix
        n = self.n.get((kind, text), 0)
        self.n[(kind, text)] = n + 1
        self.key = self.ns.key(kind, text, n)  # type: ignore[arg-type]
        return self.store.get(self.key)

    def withheld(self) -> bool:
        """Whether a run did not store the last entry looked up, as it would hold a secret."""
        return self.store.get(withheld_key(self.key)) is not None

    def note_values(self, case: Case, step: Step) -> None:
        """After a step: which values its entries were made with (never a secret's)."""
        if self.values:
            self.notes.append(f"{_where(case, step)}: its cached entries were made with "
                              f"{_values(self.values)}")
        self.values = {}


def _where(case: Case, step: Step) -> str:
    text = str(step.value if step.spec.shape == "prompt" else step.target or "")
    return f"{case.file.name}:{step.line} `{step.kind}: {text.splitlines()[0] if text else ''}`"


def export_case(case: Case, store: CacheStore, env: Mapping[str, str] | None = None,
                secrets_dir: Path | None = None) -> str:
    """The YAML text of ``case`` with every ``ai`` step replaced by its cached actions;
    UserError naming the step when one has no cached plan or cannot be written as a step.
    ``env`` and ``secrets_dir``: where the run read ``${NAME}`` values (none: only ``vars:``)."""
    variables = Variables.from_sources(defaults=case.vars, env=env or {},
                                       secrets_dir=secrets_dir, secrets=case.secrets)
    uses = _Uses(store, Namespace(case.id, case.platform,
                                  app_version(case.cache_key, case.agent)), variables)
    tasks = []
    for task in case.tasks:
        flow = []
        for step in task.steps:
            flow += list(_items(step, case, uses))
            uses.note_values(case, step)
        entry: dict[str, Any] = {"name": _name_as_written(task.name)}
        if task.continue_on_error:
            entry["continueOnError"] = True
        tasks.append({**entry, "flow": flow})
    doc: dict[str, Any] = {"name": f"{_name_as_written(case.name)} (exported from the cache)"}
    top = yaml.safe_load(case.file.read_text(encoding="utf-8"))
    doc.update(_target(top))
    doc.update({k: top[k] for k in _KEPT if k in top})
    if case.agent:
        doc["agent"] = {k: v for k, v in case.agent.items() if k != "cache"} or None
        if doc["agent"] is None:
            del doc["agent"]
    doc["tasks"] = tasks
    return _header(case, uses) + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True,
                                                 width=100)


def _header(case: Case, uses: _Uses) -> str:
    """What the export runs with: "no model" only when no step asks one (an aiAssert, an
    aiQuery: what they judge or read is the model's answer, never cached; a run with no model
    skips the case)."""
    runs = ("runs with no model but for the ai steps kept below" if uses.kept
            else "runs with no model")
    if uses.needs:
        which = ("the step that always asks one" if len(uses.needs) == 1
                 else f"the {len(uses.needs)} steps that always ask one")
        runs = (f"still needs a model for {which} ({'; '.join(uses.needs)})"
                + (" and for the ai steps kept below" if uses.kept else "")
                + "; the rest runs with no model")
    lines = [f"Exported by `farm cache export` from {case.file.name}: {runs}.",
             "Targets carry the XPath the cache had; the prompt is the fallback.", *uses.notes]
    return "".join(f"# {line}\n" for line in lines)


def _name_as_written(name: str) -> str:
    """A name as the loaded case has it (its variables substituted at load) written back so
    that it loads as the same text: a literal ``${`` (from a ``$${`` escape) as ``$${``."""
    return name.replace("${", "$${")


# The case file's own settings, kept as written: without them the export did not load (a
# step's ${NAME} from the case's vars: undefined), ran under the defaults (timeout, retries),
# left -k/--tags runs, and showed what the case's secrets: hid.
_KEPT = ("timeout", "retries", "tags", "secrets", "vars")


def _target(top: dict[str, Any]) -> dict[str, Any]:
    """The case's target section as its file (``top``) writes it: the keys the loader reads
    (Midscene's ``autoDismissKeyboard``, not the model's field names), its ``${NAME}``s and
    its paths (``serve:``, ``cookie:``, relative to the case's folder, where the export goes)
    kept; the deprecated ``target:`` written as ``page:``, which it is read as."""
    section = next(k for k in (*WEB_SECTIONS, *MOBILE_SECTIONS) if k in top)
    return {"page" if section == "target" else section: top[section]}


def _items(step: Step, case: Case, uses: _Uses) -> Iterator[dict[str, Any]]:
    cacheable = step.options.get("cacheable") is not False
    images = step.options.get("images")      # a {prompt, images} step: keys carry them too
    if step.spec.call == "ai_act":
        if not cacheable:
            uses.notes.append(f"{_where(case, step)} is cacheable: false, so it has no cached "
                              "plan: kept as written (it needs a model)")
            uses.kept += 1
            yield _as_written(step)
            return
        context = uses.keyed(str(case.agent.get("aiActContext") or ""))
        entry = uses.next("plan", step.value or "", images_key(images) + context_key(context))
        if entry is None and uses.withheld():
            raise UserError(f"{case.file}:{step.line}: no cached plan for `{step.kind}: "
                            f"{step.value}` in the cache store {uses.store.where}: a run planned "
                            "it, but its plan would hold a secret value, so it was not cached "
                            "(farm.log: 'not cached: the plan entry … would hold a secret "
                            "value'); keep the step as written (it needs a model), or type the "
                            "secret in a step of its own (aiInput with value: ${NAME})")
        if entry is None:
            raise UserError(f"{case.file}:{step.line}: no cached plan for `{step.kind}: "
                            f"{step.value}` in the cache store {uses.store.where}"
                            f"{_looked_up_with(uses.values)}; run the case once with a model "
                            "(cache read-write) first, or point at the store its run used "
                            "(FARM_STATE_DIR, FARM_CACHE_URL)")
        actions = _actions(entry)
        if not actions:     # an older farm's entry (the model passed it without acting), or
            uses.notes.append(f"{_where(case, step)} has a cached plan " + (   # one edited
                "with no action (the model judged the screen)" if actions is not None else
                "farm cannot read (edited by hand?), which a run does not replay either")
                + ": kept as written (it needs a model)")
            uses.kept += 1
            yield _as_written(step)
            return
        for action in actions:
            yield _step_for(action, case, step, uses, images)
        return
    item = _as_written(step)
    if step.spec.needs_model:
        uses.needs.append(_where(case, step))
    if cacheable and step.target and step.spec.shape in ("locate", "input", "key", "scroll"):
        xpath = _first_xpath(uses.next("locate", step.target, images_key(images)))
        if xpath and not step.xpath:
            item["xpath"] = xpath
    yield item


def _actions(entry: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A plan entry's actions ([] when it has none), or None when they are not a list of
    actions, each an object with its params in one (an entry edited by hand in a shared
    store): a run reads it as no plan (`farm.cache.plan`); the export ended in an internal
    error."""
    actions = entry.get("actions") or []
    if not isinstance(actions, list) or not all(
            isinstance(a, dict) and isinstance(a.get("params") or {}, dict) for a in actions):
        return None
    return actions


def _first_xpath(found: dict[str, Any] | None) -> str | None:
    """A locate entry's first XPath; None when it has none it could use (a hand-edited entry's
    ``xpaths`` as one string gave its first character, "/")."""
    xpaths = found.get("xpaths") if found else None
    first = xpaths[0] if isinstance(xpaths, list) and xpaths else None
    return first if isinstance(first, str) and first else None


def _looked_up_with(values: dict[str, str]) -> str:
    """`` (looked up with A="x": ...)``: the values a plan's key was made of, here."""
    if not values:
        return ""
    return f" (looked up with {_values(values)}: export with the values its run had)"


def _values(values: dict[str, str]) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)[:80]}"
                     for k, v in sorted(values.items()))


def _as_written(step: Step) -> dict[str, Any]:
    """A loaded step back in its YAML form."""
    spec = step.spec
    item: dict[str, Any] = {}
    if spec.shape == "key":
        item[step.kind] = step.value
        if step.target:
            item["locate"] = step.target
    elif spec.shape == "input":
        item[step.kind] = step.target
        item["value"] = step.value
    elif spec.shape in ("locate", "scroll"):
        item[step.kind] = step.target or ""
    elif spec.shape == "ms":
        item[step.kind] = int(step.value or 0)
    elif spec.shape == "request":
        item[step.kind] = {k: step.options[k] for k in spec.passes if k in step.options}
    else:
        item[step.kind] = step.value
    if step.options.get("images"):          # back to the {prompt, images} object form
        text = step.value if spec.shape == "prompt" else step.target
        _with_images(item, step.kind, spec.shape, text or "", step.options["images"])
    if step.xpath:
        item["xpath"] = step.xpath
    if step.timeout_ms:
        item["timeout"] = step.timeout_ms
    for key, value in step.options.items():
        if key not in item and key != "images" and not (
                spec.shape == "request" and key in spec.passes):
            item[key] = _name_as_written(value) if key == "name" and isinstance(value, str) \
                else value
    return item


def _with_images(item: dict[str, Any], kind: str, shape: str, prompt: str,
                 images: list[dict[str, str]]) -> None:
    """Put ``prompt`` with its images where the step's kind reads its target's object form."""
    pictured = _pictured(prompt, images)
    if shape in ("prompt", "input"):
        item[kind] = pictured
    elif shape == "key":
        item["locate"] = pictured
    else:
        item.update({kind: None, "locate": pictured})


def _pictured(prompt: str, images: list[dict[str, str]]) -> dict[str, Any]:
    """``{prompt, images[, convertHttpImage2Base64]}`` as Midscene writes it."""
    out: dict[str, Any] = {"prompt": prompt,
                           "images": [{"name": i["name"], "url": i["url"]} for i in images]}
    if any(i.get("fetch") for i in images):
        out["convertHttpImage2Base64"] = True
    return out


def _step_for(action: dict[str, Any], case: Case, step: Step, uses: _Uses,
              images: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A cached action as the suite step that runs the same action (with the ai step's
    reference images on its target, as the act located it)."""
    name, params = str(action.get("type")), dict(action.get("params") or {})
    kind = _KIND_OF.get(name)
    loc = params.pop("locate", None)
    # a target as its prompt alone, as a run takes it (`Locate`); anything else: none
    loc = {"prompt": loc} if isinstance(loc, str) else loc if isinstance(loc, dict) else None
    prompt = (loc or {}).get("prompt") or ""
    spec = KINDS.get(kind or "")
    boxed = bool((loc or {}).get("at"))      # a box-only target no XPath names (a canvas)
    if spec is None or not (prompt or (loc or {}).get("xpath")) and (
            spec.shape in ("locate", "input") or boxed):
        what = name if spec is None else f"{name} with no target" if not boxed else \
            f"{name} on a box the model gave (no XPath names what it hit)"
        raise UserError(f"{case.file}:{step.line}: the cached plan of `{step.kind}` uses "
                        f"{what}, which no suite step runs; this case cannot be exported")
    value = params.pop(spec.value_param, None) if spec.value_param else None
    if spec.shape in ("locate", "scroll"):
        item: dict[str, Any] = {kind: prompt or None}
    elif spec.shape == "input":
        item = {kind: prompt, "value": value or ""}
    elif spec.shape == "key":
        item = {kind: value, **({"locate": prompt} if prompt else {})}
    elif spec.shape == "ms":
        item = {kind: int(value or 0)}
    else:
        item = {kind: value}
    item.update({key: params[key] for key in spec.passes if key in params})
    if images and prompt:
        _with_images(item, str(kind), spec.shape, prompt, images)
    _add_xpath(item, loc, uses, images_key(images))
    return item


def _add_xpath(item: dict[str, Any], loc: dict[str, Any] | None, uses: _Uses,
               suffix: str = "") -> None:
    if not loc:
        return
    if loc.get("xpath"):
        item["xpath"] = loc["xpath"]
    elif loc.get("prompt"):
        xpath = _first_xpath(uses.next("locate", loc["prompt"], suffix))
        if xpath:
            item["xpath"] = xpath
    if loc.get("deepLocate"):
        item["deepLocate"] = True


def export_path(case: Case, output: Path | None) -> Path:
    """Where the export goes: ``output``, else ``<case>.solved.yaml`` beside the case (in its
    suite, so farm.yaml's vars, secrets and apps still apply; discovery passes it over, so
    the suite does not run the case twice: `farm run` the file itself)."""
    return output or case.file.with_name(case.file.stem + SOLVED_SUFFIX)


def export_target(case: Case, output: Path | None, what: str) -> Path:
    """`export_path`, checked before anything is exported: a directory, or a path under a
    file, is a ConfigError (exit 4) ``<what> <path>: cannot write there (...)``, as
    ``farm report --out`` says it."""
    from farm.report.paths import writable_file
    target = export_path(case, output)
    writable_file(target, what)
    return target


def refuse_poorer(target: Path, text: str, store: CacheStore) -> None:
    """ConfigError (exit 4) when ``target`` is there and holds more cached XPaths than
    ``text``: an export read from the wrong store (an empty one, another directory's) must not
    silently replace a good one. Names the store read and how to point at the right one."""
    try:
        before = _xpaths(target.read_text(encoding="utf-8")) if target.is_file() else 0
    except OSError:
        return
    now = _xpaths(text)
    if now < before:
        raise ConfigError(
            f"{target} holds {before} cached XPath(s); the export from the cache store "
            f"{store.where} would hold {now}: not overwritten. Export with the store the "
            "case's run used (FARM_STATE_DIR=<its state directory>, or FARM_CACHE_URL / "
            f"--broker for a Redis), or delete {target} to write the poorer export")


def _xpaths(text: str) -> int:
    """How many steps of an exported flow carry an ``xpath``."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return 0
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    return sum(1 for task in tasks or [] if isinstance(task, dict)
               for item in task.get("flow") or [] if isinstance(item, dict) and item.get("xpath"))


def write_export(target: Path, text: str, what: str) -> None:
    """Write an export; a disk that refuses it after the check is said the same way."""
    from farm.report.paths import why_not_written
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{what} {target}: cannot write there "
                          f"({why_not_written(target, exc)})") from None


def run_cases(run_dir: Path, env: Mapping[str, str], cwd: Path | None = None,
              secrets_dir: Path | None = None) -> list[Case]:
    """The passed (and flaky) cases of a run directory, loaded from their files. results.json
    names a file as the run was given it: relative to the directory the run was started in
    (which it does not record) when below it. So each is looked for relative to the run
    directory and every folder above it (a run directory lies under where its run started:
    ``.farm/runs/<id>``, or a --report-dir), then to ``cwd``; the file must still hold the case
    the run ran. UserError when one is gone, naming the run's case and where it looked.
    ``env`` and ``secrets_dir`` define the ``${NAME}``s, as for the run."""
    source = run_dir / "results.json"
    # a killed run has only its journal: `farm report` writes results.json from it
    rebuild = (f": `farm report {run_dir}` rebuilds it from the run's journal (results.jsonl), "
               "then export again" if (run_dir / "results.jsonl").is_file() else "")
    if not source.is_file():
        if rebuild:
            raise UserError(f"{run_dir}: its run was stopped before it wrote results.json"
                            + rebuild)
        raise UserError(f"{run_dir}: neither a case file nor a run directory (no results.json)")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise UserError(f"{source}: cannot read it as a run's results ({exc})" + rebuild
                        ) from None
    records = (data.get("cases") if isinstance(data, dict) else None) or []
    if not isinstance(records, list):   # another program's results.json, or one hand-edited
        raise UserError(f"{source}: cannot read it as a run's results (its 'cases' is not "
                        "a list)")
    wanted: dict[str, str] = {}     # a --matrix run's case passed on several device groups
    for c in records:               # (demo/login@pixel, ...): the first one's entries
        if not isinstance(c, dict):
            continue
        if c.get("status") in ("passed", "flaky") and c.get("file"):
            wanted.setdefault(str(c["file"]), str(c.get("case_id") or ""))
    if not wanted:
        raise UserError(f"{run_dir}: no passed case to export")
    return [_run_case(file, case_id, run_dir, (env, secrets_dir),
                      Path.cwd() if cwd is None else cwd)
            for file, case_id in wanted.items()]


def _run_case(recorded: str, case_id: str, run_dir: Path,
              sources: tuple[Mapping[str, str], Path | None], cwd: Path) -> Case:
    from farm.suite.loader import load_case_file
    looked: list[str] = []
    for path in _places(Path(recorded), run_dir, cwd):
        if not path.is_file():
            continue
        case = load_case_file(path, env=sources[0], secrets_dir=sources[1])
        if not case_id or case.id == case_id:
            return case
        if case_id.split("@", 1)[0] == case.id:   # a --matrix run's: its group's entries
            return case.model_copy(update={"id": case_id})
        looked.append(f"{path} holds case {case.id}")
    where = ("" if Path(recorded).is_absolute() else
             f" (looked relative to the run directory {run_dir.resolve()}, the folders above "
             f"it and the working directory {cwd})")
    also = f"; {'; '.join(looked)}" if looked else ""
    raise UserError(f"{run_dir}: the file of the run's case {case_id or recorded}, "
                    f"{recorded}, is missing{where}{also}; export from the directory the run "
                    "was started in, or give the case file itself")


def _places(recorded: Path, run_dir: Path, cwd: Path) -> list[Path]:
    """Where a case file results.json names may be, most likely first."""
    if recorded.is_absolute():
        return [recorded]
    here = run_dir.resolve()
    return list(dict.fromkeys([*(d / recorded for d in (here, *here.parents)), cwd / recorded]))
