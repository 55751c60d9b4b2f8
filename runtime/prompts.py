"""prompts/get: decode and check the arguments against the prompt's contract, render it.

Prompt arguments are strings on the wire; a value the contract types as
something else (a number, a boolean) is read as JSON. A missing, unknown or
invalid argument is a JSON-RPC invalid-params error naming it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, NoReturn

import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .errors import InvalidArgument, ToolError, shown
from .seam import HandlerSet
from .surfaces import Prompt
from .validation import json_path

log = logging.getLogger(__name__)


def _fail(code: int, message: str) -> NoReturn:
    log.info("prompts/get: %s", message)
    raise MCPError(code=code, message=message)


def decoded(prompt: Prompt, arguments: Mapping[str, str]) -> dict[str, Any]:
    """The argument values as the contract types them."""
    values: dict[str, Any] = {}
    for name, text in arguments.items():
        if name not in prompt.json_encoded:
            values[name] = text
            continue
        try:
            values[name] = json.loads(text)
        except ValueError:
            _fail(
                types.INVALID_PARAMS,
                f"Invalid arguments for prompt {prompt.entry.name}: `{name}`: {shown(text)} is "
                f"not a JSON value ({prompt.arguments_schema['properties'][name].get('type')} "
                "expected, e.g. 30). Fix the argument and ask again.",
            )
    return values


async def get_prompt(
    prompt: Prompt, handlers: HandlerSet, arguments: Mapping[str, str] | None
) -> types.GetPromptResult:
    name = prompt.entry.name
    values = decoded(prompt, arguments or {})
    problems = [] if prompt.arguments.accepts(values) else prompt.arguments.problems(values)
    if problems:
        _fail(
            types.INVALID_PARAMS,
            f"Invalid arguments for prompt {name}: "
            + "; ".join(problems)
            + ". Fix the arguments (see the prompt's arguments) and ask again.",
        )
    try:
        params = prompt.arguments_model.model_validate(values, strict=True)
    except ValidationError as exc:
        fields = "; ".join(f"`{json_path(e['loc'])}`: {e['msg']}" for e in exc.errors())
        _fail(types.INVALID_PARAMS, f"Invalid arguments for prompt {name}: {fields}.")
    try:
        text = await handlers.prompt(prompt.entry.method)(params)
    except InvalidArgument as exc:
        _fail(types.INVALID_PARAMS, exc.message)
    except ToolError as exc:
        _fail(types.INTERNAL_ERROR, exc.message)
    except MCPError:
        raise
    except Exception as exc:
        log.exception("rendering prompt %s failed", name)
        _fail(
            types.INTERNAL_ERROR,
            f"Rendering {name} failed inside the server ({type(exc).__name__}: {exc}).",
        )
    if not isinstance(text, str):
        log.error("%s answered %r, not text", prompt.entry.method, type(text))
        _fail(types.INTERNAL_ERROR, f"Rendering {name} produced no text; this is a server bug.")
    log.debug("rendered prompt %s", name)
    return types.GetPromptResult(
        description=prompt.contract.get("description"),
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )
