"""completion/complete: live values for a prompt argument or a resource-template variable.

The contract names what an argument completes to (its completion kind); the
handlers know where such values live. A completion is a convenience: when
tmux cannot answer, the answer is an empty list, not an error.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import mcp.types as types
from mcp.shared.exceptions import MCPError

from .errors import ToolError
from .seam import HandlerSet
from .surfaces import Prompt, Resource

log = logging.getLogger(__name__)

MAX_VALUES = 100  # what one completion answer may carry


def _kind(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: str,
    prompts: Mapping[str, Prompt],
    resources: Mapping[str, Resource],
) -> str | None:
    if isinstance(ref, types.PromptReference):
        prompt = prompts.get(ref.name)
        if prompt is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown prompt {ref.name!r}: this server's prompts are "
                f"{', '.join(prompts) or 'none'}",
            )
        return prompt.entry.complete.get(argument)
    for resource in resources.values():
        if resource.entry.uri == ref.uri:
            return resource.entry.complete.get(argument)
    raise MCPError(
        code=types.INVALID_PARAMS,
        message=f"Unknown resource template {ref.uri!r}: this server's templates are "
        f"{', '.join(r.entry.uri for r in resources.values()) or 'none'}",
    )


async def complete(
    params: types.CompleteRequestParams,
    prompts: Mapping[str, Prompt],
    resources: Mapping[str, Resource],
    handlers: HandlerSet,
) -> types.CompleteResult:
    kind = _kind(params.ref, params.argument.name, prompts, resources)
    completer = handlers.completer()
    values: list[str] = []
    if kind is not None and completer is not None:
        context = dict(params.context.arguments or {}) if params.context else {}
        try:
            values = list(await completer(kind, params.argument.value, context))
        except ToolError as exc:
            log.info("no completion for %s: %s", params.argument.name, exc.message)
    return types.CompleteResult(
        completion=types.Completion(
            values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES
        )
    )
