"""What the rust and swift skeleton tests hold each profile to, in and out of tests/e2e/."""

from __future__ import annotations

from tmux_contract_mcp.profiles import load_profile

ALL_TOOLSETS = ("inspect", "manage", "execute", "teardown")

# The skeleton's tools a profile does not serve yet (none: all 45 are served by each).
# Serving one fails the comparison until it is taken off its list.
NOT_SERVED_YET: dict[str, set[str]] = {"rust": set(), "swift": set()}


def swift_served_toolsets() -> dict[str, str]:
    return dict(load_profile("swift").catalog)
