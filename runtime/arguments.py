"""The one judgement of a tool's arguments, for a direct call and for a batch's operations.

Nothing runs until the arguments have passed, in this order: the text rule
(no NUL, no lone surrogate), the contract's JSON Schema, and the strict
generated model, which reads them with each integral float made an int (see
``integral``). A batch puts every operation through this same function
before its first operation runs, so a nested call and a direct call can
never be judged differently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from .handlers.services import ArgumentsRefused
from .integral import integral
from .text_rule import text_problems

if TYPE_CHECKING:
    from .profiles import Tool
from .validation import json_path


def refused(tool: Tool, problems: list[str]) -> ArgumentsRefused:
    """The refusal of a call to ``tool``: one line per problem, naming field, rule and fix,
    and the whole answer the agent reads."""
    message = (
        f"Invalid arguments for {tool.entry.name}: "
        + "; ".join(problems)
        + ". Nothing was run; fix the arguments (see the tool's input schema) and call again."
    )
    return ArgumentsRefused(problems, message)


def model_errors(exc: ValidationError, prefix: Sequence[str | int] = ()) -> list[str]:
    return [
        f"`{json_path([*prefix, *error['loc']])}`: {error['msg']} (rule: {error['type']})"
        for error in exc.errors()
    ]


def check_arguments(
    tool: Tool, arguments: Mapping[str, Any] | None, prefix: Sequence[str | int] = ()
) -> BaseModel:
    """The handler's typed arguments, or ArgumentsRefused; ``arguments`` is never changed.

    ``prefix`` is where the arguments sit in a larger call (a batch operation).
    """
    value: Any = {} if arguments is None else arguments
    problems = text_problems(value, prefix)
    if problems:
        raise refused(tool, problems)
    if not tool.checks.input.accepts(value):
        raise refused(tool, tool.checks.input.problems(value, prefix))
    value = integral(value)
    try:
        params: BaseModel = tool.input_model.model_validate(value, strict=True)
    except ValidationError as exc:
        raise refused(tool, model_errors(exc, prefix)) from None
    return params
