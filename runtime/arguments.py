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
from typing import Any

from pydantic import BaseModel, ValidationError

from .integral import integral
from .profiles import Tool
from .text_rule import text_problems
from .validation import argument_errors, json_path


class ArgumentsRefused(Exception):
    """Arguments that broke a rule: one line per problem, naming field, rule and fix."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def unexplained(prefix: Sequence[str | int] = ()) -> str:
    """The line for a value the compiled check refused and the full validator did not.

    Both read the same schema, so this is a server bug; the value is refused
    all the same rather than let through on the word of the more lenient one.
    """
    where = f"`{json_path(prefix)}`" if prefix else "the value"
    return (
        f"{where}: the contract's compiled check refused it, but the full validator names no "
        "broken rule (rule: one verdict); this is a server bug, please report it with the call"
    )


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
        raise ArgumentsRefused(problems)
    value = integral(value)
    if not tool.input_check(value):
        errors = argument_errors(tool.input_validator, value, prefix)
        raise ArgumentsRefused(errors or [unexplained(prefix)])
    try:
        params: BaseModel = tool.input_model.model_validate(value, strict=True)
    except ValidationError as exc:
        raise ArgumentsRefused(model_errors(exc, prefix)) from None
    return params
