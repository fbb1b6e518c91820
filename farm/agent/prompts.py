"""Prompt text per grammar. Task text reaches the model as written in the suite: ``${NAME}``
placeholders stay placeholders (the device gets the values, the model never does)."""

from __future__ import annotations

from farm.llm.families import Family, coordinate_hint

XML_SYSTEM = """You are a UI automation agent. You see a screenshot of a {platform} screen and \
carry out the user's task one action at a time. After every action you get a new screenshot.

Available actions (parameters as JSON):
{actions}

{locate}

Answer in exactly this XML:
{thought}<log>one short line describing the action</log>
<memory>anything worth remembering for later steps (optional)</memory>
<action-type>ActionName</action-type>
<action-param-json>{{"locate": {example}}}</action-param-json>
{goals}
When the task is done (or cannot be done) answer instead:
{thought_done}<complete success="true|false">what happened</complete>
Text written as ${{NAME}} is a placeholder for a secret value: type it exactly as written."""

THOUGHT = "<thought>what you see and why you act</thought>\n"
# The planner's box answers the locate (farm's default, planningStrategy fast, deepThink) ...
LOCATE_BOX = ('A Locate is {{"prompt": "<short description of the element>", "bbox": [..]}}. '
              '{coords}')
# ... or the planner describes the element only and it is located separately (standard, max).
LOCATE_TEXT = ('A Locate is {{"prompt": "<description of the element, precise enough to find '
               'it on the screen>"}}: give no box, the element is located separately.')
SUB_GOALS = """First split the task into sub-goals, once, before the first action:
<update-plan-content><sub-goal index="1">…</sub-goal><sub-goal index="2">…</sub-goal>\
</update-plan-content>
and when a sub-goal is achieved add <mark-sub-goal-done>N</mark-sub-goal-done> to your answer.
"""
REFERENCE_INTRO = ("The task refers to these reference images. They are context, not the "
                   "current screen:")

AUTOGLM_SYSTEM = """You operate a {platform} screen. Think in <think></think>, then answer in \
<answer></answer> with one call: do(action="Tap", element=[x,y]), do(action="Type", text="…"), \
do(action="Swipe", start=[x,y], end=[x,y]), do(action="Long Press", element=[x,y]), \
do(action="Double Tap", element=[x,y]), do(action="Back"), do(action="Home"), \
do(action="Launch", app="…"), do(action="Wait", duration="2 seconds"), or \
finish(message="…") when the task is done. Coordinates are 0-999 relative to the screenshot. \
Text written as ${{NAME}} is a secret placeholder: type it exactly as written."""

UITARS_SYSTEM = """You are a GUI agent on a {platform} screen. Reply as
Thought: …
Action: one of click(start_box='(x,y)'), left_double(start_box='(x,y)'), \
right_single(start_box='(x,y)'), drag(start_box='(x,y)', end_box='(x,y)'), hotkey(key=''), \
type(content=''), scroll(start_box='(x,y)', direction='down'), long_press(start_box='(x,y)'), \
press_home(), press_back(), open_app(app_name=''), wait(), finished(content='').
{coords} End type content with \\n to press Enter. \
Text written as ${{NAME}} is a secret placeholder: type it exactly as written."""


def system_prompt(family: Family, platform: str, actions: str, thought: bool = True,
                  boxes: bool = True, sub_goals: bool = False) -> str:
    """The planning system prompt for ``family``'s grammar. For the XML grammar the planning
    depth (farm.agent.loop.Planning) shapes it: a ``thought`` before each action or not,
    ``boxes`` from the planner or descriptions only, ``sub_goals`` first or not. AutoGLM and
    UI-TARS plan in their own fixed formats (boxes only)."""
    template = {"autoglm": AUTOGLM_SYSTEM, "uitars": UITARS_SYSTEM}.get(family.grammar)
    if template is not None:
        coords = ("Coordinates are pixels of the screenshot." if family.scale is None else
                  f"Coordinates are 0-{family.scale} relative to the screenshot.")
        return template.format(platform=platform, coords=coords)
    locate = (LOCATE_BOX if boxes else LOCATE_TEXT).format(coords=coordinate_hint(family))
    example = '{"prompt": "...", "bbox": [...]}' if boxes else '{"prompt": "..."}'
    return XML_SYSTEM.format(platform=platform, actions=actions, locate=locate,
                             example=example,
                             thought=THOUGHT if thought else "",
                             thought_done="<thought>…</thought>\n" if thought else "",
                             goals=SUB_GOALS if sub_goals else "")


def reference_parts(images: list[dict[str, str]]) -> list[dict]:
    """Reference images of a ``{prompt, images}`` prompt as message parts: each one named in
    a text part right before it (the prompt can then say "the logo like 'brand'")."""
    if not images:
        return []
    out: list[dict] = [{"type": "text", "text": REFERENCE_INTRO}]
    for image in images:
        out += [{"type": "text", "text": f"Reference image '{image['name']}':"},
                {"type": "image_url", "image_url": {"url": image["url"]}}]
    return out


def round_prompt(task: str, state: str, feedback: str, context: str | None,
                 strict_step: tuple[int, int] | None = None) -> str:
    """The user message of one planning round (the screenshot goes beside it)."""
    parts = [f"Task: {task}"]
    if strict_step is not None:
        i, n = strict_step
        parts.append(f"Strict mode: carry out step {i} of {n} only, exactly as written; do not "
                     f"skip ahead. Say <complete success=\"true\"> when step {i} is done.")
    if context:
        parts.append(f"Context: {context}")
    if state:
        parts.append(state)
    if feedback:
        parts.append(f"Feedback on the last action:\n{feedback}")
    return "\n\n".join(parts)


def _box_shape(family: Family) -> str:
    """The box as the family writes it, for the JSON example (the same order as
    `coordinate_hint`: an example in the other order would be followed)."""
    return "[ymin, xmin, ymax, xmax]" if family.order == "yx" else "[x1, y1, x2, y2]"


def locate_prompt(target: str, family: Family, search_area: bool = False) -> str:
    """A stand-alone locate request: answer {"bbox": [...]} or {"bbox": [], "error": "..."}."""
    where = " The image is a zoomed-in part of the screen." if search_area else ""
    return (f"Find the element: {target}.{where} {coordinate_hint(family)} Answer only JSON: "
            f'{{"bbox": {_box_shape(family)}}} or {{"bbox": [], "error": "why it is not '
            'there"}.')


def section_prompt(target: str, family: Family) -> str:
    return (f"Find the section of the screen that contains: {target}. Give a generous box "
            f"around that area. {coordinate_hint(family)} Answer only JSON: "
            f'{{"bbox": {_box_shape(family)}}} or {{"bbox": [], "error": "..."}}.')


def assert_prompt(assertion: str) -> str:
    return ("Judge this statement about the screenshot strictly. Answer only JSON: "
            '{"pass": true|false, "thought": "why"}.\nStatement: ' + assertion)


QUERY_SHAPES = {"aiQuery": "any JSON value matching the request", "aiBoolean": "true or false",
                "aiNumber": "a number", "aiString": "a string", "aiAsk": "a string"}


def query_prompt(query: str, kind: str) -> str:
    return (f"Extract from the screenshot: {query}\nAnswer only JSON: "
            f'{{"data": <{QUERY_SHAPES.get(kind, QUERY_SHAPES["aiQuery"])}>, "thought": "..."}}')
