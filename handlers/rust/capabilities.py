"""The rust profile's ``tmux://capabilities`` resource (the document: ``libtmux_family.capabilities``)."""

from __future__ import annotations

from ...generated.rust.models.resource_capabilities import (
    CapabilitiesResourceResult,
    CapabilitiesResourceVariables,
)
from ..libtmux_family.capabilities import CapabilityDocument


class Capabilities:
    def __init__(self, document: CapabilityDocument) -> None:
        self.document = document

    async def resource_capabilities(
        self, variables: CapabilitiesResourceVariables
    ) -> CapabilitiesResourceResult:
        return CapabilitiesResourceResult.model_validate(await self.document.read())
