"""Every name the generator writes comes from here."""

from __future__ import annotations

import keyword
import re
from typing import Any

PACKAGE = "tmux_contract_mcp"


def pascal(name: str) -> str:
    """``find_pane_by_position`` -> ``FindPaneByPosition``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def identifier(name: str) -> str:
    """A Python identifier for a tool name (the handler method's name)."""
    ident = re.sub(r"\W", "_", name)
    if ident[:1].isdigit() or keyword.iskeyword(ident):
        ident = f"tool_{ident}"
    return ident


def module_name(tool: str) -> str:
    return identifier(tool)


def input_class(tool: str) -> str:
    return f"{pascal(tool)}Input"


def output_class(tool: str) -> str:
    return f"{pascal(tool)}Output"


def interface_class(profile: str) -> str:
    return f"{pascal(profile)}ProfileHandlers"


def profile_package(profile: str) -> str:
    return f"{PACKAGE}.generated.{profile}"


def models_module(profile: str, tool: str) -> str:
    return f"{profile_package(profile)}.models.{module_name(tool)}"


def resource_method(resource: str) -> str:
    """The handler method that reads a resource: ``get_pane`` -> ``resource_get_pane``."""
    return f"resource_{identifier(resource)}"


def resource_module(resource: str) -> str:
    return f"resource_{identifier(resource)}"


def resource_variables_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceVariables"


def resource_result_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceResult"


def prompt_method(prompt: str) -> str:
    """The handler method that renders a prompt: ``run_and_wait`` -> ``prompt_run_and_wait``."""
    return f"prompt_{identifier(prompt)}"


def prompt_module(prompt: str) -> str:
    return f"prompt_{identifier(prompt)}"


def prompt_arguments_class(prompt: str) -> str:
    return f"{pascal(prompt)}PromptArguments"


def _operation(branch: Any) -> str | None:
    """The tool a batch alternative calls: its ``tool`` property's const."""
    tool = branch.get("properties", {}).get("tool") if isinstance(branch, dict) else None
    const = tool.get("const") if isinstance(tool, dict) else None
    return const if isinstance(const, str) else None


def titled(schema: Any) -> tuple[Any, list[str]]:
    """``schema`` (the models' copy) with a title on each batch alternative, named for the
    tool it calls (``CapturePaneOperation``); and those titles. The generator names the
    classes within an alternative after it (``...CapturePaneOperationArguments``)."""
    titles: list[str] = []

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        copy = {key: walk(value) for key, value in node.items()}
        for combinator in ("oneOf", "anyOf"):
            for branch in copy.get(combinator, ()):
                tool = _operation(branch)
                if tool is None:
                    continue
                name = f"{pascal(tool)}Operation"
                branch["title"] = name
                titles.append(name)
        return copy

    return walk(schema), titles


_CLASS = re.compile(r"^class (\w+)\(", re.MULTILINE)


def readable_classes(
    code: str,
    roots: list[str],
    titles: list[str],
    defs: list[tuple[str, str]],
    where: str,
) -> str:
    """``code`` with the model generator's path-built class names replaced by the names a
    person would write, so that none reaches a handler or a message as a riddle.

    - a class named for a title from ``titled`` drops the path before it:
      ``CallReadToolsBatchInputCapturePaneOperation`` -> ``CapturePaneOperation``;
    - a ``$defs`` entry is named for its key (``defs``: each key and the root class it
      hangs off), without a ``Schema`` suffix: ``SelectPaneInputSelectPaneDirectionSchema`` ->
      ``SelectPaneDirection``;
    - a root's name said twice is said once:
      ``GetSessionsResourceResultGetSessionsResourceResultItem`` -> ``GetSessionsResourceResultItem``.
    """
    classes = _CLASS.findall(code)
    # A ``$defs`` key both the input and the output define keeps its root in the name
    # (``SendKeysBatchInputOnError``, ``SendKeysBatchOutputOnError``): one name each.
    keys = [key for key, _ in defs]
    shared = {key for key in keys if keys.count(key) > 1}
    renamed: dict[str, str] = {}
    for name in classes:
        new = name
        for key, root in defs:
            prefix = f"{root}{pascal(key)}"
            if new.startswith(prefix):
                kept = root if key in shared else ""
                new = kept + pascal(key.removesuffix("Schema")) + new[len(prefix) :]
        for title in titles:
            if title in new[1:]:
                new = new[new.rindex(title) :]
        for root in roots:
            if new.startswith(root * 2):
                new = new[len(root) :]
        if new != name:
            renamed[name] = new
    targets = list(renamed.values())
    clashes = sorted(
        {n for n in targets if targets.count(n) > 1 or (n in classes and n not in renamed)}
    )
    if clashes:
        raise RuntimeError(f"{where}: two models would be named {', '.join(clashes)}")
    for old in sorted(renamed, key=len, reverse=True):
        code = re.sub(rf"\b{old}\b", renamed[old], code)
    return code
