"""Policies for runs without an agent: `ScriptedPolicy` plays fixed action lists, `find_index` fills their slots."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .tasks import TaskSpec

__all__ = ["Policy", "ScriptedPolicy", "find_index"]

# policy(observation, info, task) -> an action, or None to stop (sync or async).
Policy = Callable[[dict[str, Any], dict[str, Any], TaskSpec], Any]

_SLOT = re.compile(r"\{([^{}]+)\}")
_SLOT_FIELDS = ("aria-label", "placeholder", "name", "text", "value", "href", "tag", "type")


def _matches(desc: Mapping[str, Any], key: str, wanted: str) -> bool:
    attrs = desc.get("attributes") or {}
    have = {
        "aria-label": desc.get("aria-label"),
        "text": desc.get("text_content"),
        "tag": desc.get("tag"),
    }.get(key, attrs.get(key))
    if not isinstance(have, str):
        return False
    if key in ("tag", "type", "name", "value"):
        return have == wanted
    return " ".join(wanted.split()).casefold() in " ".join(have.split()).casefold()


def find_index(element_index: Mapping[str, Any], query: str) -> int | None:
    """The first element matching ``key=value`` (aria-label, placeholder, name, text, value, href,
    tag, type; several joined by ``&``), or a bare label (aria-label, then placeholder, then text)."""
    items = sorted(((int(k), d) for k, d in element_index.items() if k.isdigit()), key=lambda kv: kv[0])
    if "=" in query:
        criteria = [part.split("=", 1) for part in query.split("&")]
        for key, _ in criteria:
            if key.strip() not in _SLOT_FIELDS:
                raise ValueError(
                    f"unknown field {key!r} in {{{query}}}; use one of {', '.join(_SLOT_FIELDS)}"
                )
        for i, desc in items:
            if all(_matches(desc, k.strip(), v) for k, v in criteria):
                return i
        return None
    for key in ("aria-label", "placeholder", "text"):
        for i, desc in items:
            if _matches(desc, key, query):
                return i
    return None


@dataclass(frozen=True)
class ScriptedPolicy:
    """Plays a fixed list of actions per task name, one per step; None when the list is done.

    ``{query}`` in an action becomes the quoted index of the first element `find_index` finds in
    the current observation (``fill({name=user}, 'agent')``, ``click({text=Sign in})``); when
    nothing matches the action is ``report_infeasible``. Stateless and picklable: it works in
    worker processes and Ray tasks, and with several environments at once.
    """

    scripts: Mapping[str, Sequence[str]]

    def __call__(self, obs: dict[str, Any], info: dict[str, Any], task: TaskSpec) -> str | None:
        script = self.scripts.get(task.name, ())
        step = int(info.get("step", 0))
        if step >= len(script):
            return None
        action = script[step]
        missing: list[str] = []

        def fill(match: re.Match[str]) -> str:
            found = find_index(obs.get("element_index", {}), match.group(1))
            if found is None:
                missing.append(match.group(1))
                return "''"
            return repr(str(found))

        action = _SLOT.sub(fill, action)
        if missing:
            return f"report_infeasible({('no element matches {' + missing[0] + '}')!r})"
        return action
