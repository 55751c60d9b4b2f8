"""The instructions a client gets at initialize: built from the profile and this start.

Each profile declares its lines as data (contracts/<profile>-profile.json); the
toolsets line follows LIBTMUX_TOOLSETS, and the caller's pane and socket are
stated only when the server runs inside tmux.
"""

from __future__ import annotations

import string

import pytest

from codegen.checks import ContractError, check_profile, check_profiles
from codegen.model import Profile
from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.instructions import render, toolset_facts
from tmux_contract_mcp.profiles import PROFILES, create_handlers, load_profile

INSIDE = {"TMUX": "/tmp/tmux-1000/default,4242,0", "TMUX_PANE": "%7"}


@pytest.mark.parametrize("profile", PROFILES)
def test_every_placeholder_a_profile_declares_is_one_that_gets_filled(profile: str) -> None:
    # A placeholder nothing fills would silently drop its line everywhere.
    loaded = load_profile(profile)
    handlers = create_handlers(loaded, INSIDE)
    known = set(toolset_facts(loaded, {})) | set(handlers.instruction_facts())
    assert loaded.instructions
    for line in loaded.instructions:
        names = {name for _, name, _, _ in string.Formatter().parse(line) if name is not None}
        assert names <= known, line


def test_a_line_is_left_out_when_a_fact_it_needs_is_missing() -> None:
    lines = ("always", "on: {toolsets_on}", "home: {caller_pane}")
    assert render(lines, {"toolsets_on": "inspect"}) == "always\non: inspect"
    assert render(lines, {"toolsets_on": "inspect", "caller_pane": ""}) == "always\non: inspect"


@pytest.mark.anyio
async def test_python_instructions_outside_tmux_explain_targets_and_the_toolsets(
    tmux: TmuxServer,
) -> None:
    async with open_in_process(tmux.server_env()) as client:
        assert client.initialized is not None
        text = client.initialized.instructions
    assert text is not None
    assert "sessions" in text and "windows" in text and "panes" in text
    assert "pane_id" in text and "%3" in text and "socket_name" in text
    assert "Toolsets on: inspect, manage, execute." in text.splitlines()
    assert any(line.startswith("Toolsets off: teardown, agents ") for line in text.splitlines())
    assert "inside tmux" not in text and "is_caller" not in text
    assert len(text.splitlines()) <= 8


@pytest.mark.anyio
async def test_the_toolsets_line_follows_libtmux_toolsets(tmux: TmuxServer) -> None:
    env = tmux.server_env(LIBTMUX_TOOLSETS="teardown,inspect")
    async with open_in_process(env) as client:
        assert client.initialized is not None
        lines = (client.initialized.instructions or "").splitlines()
    assert "Toolsets on: inspect, teardown." in lines
    assert any(line.startswith("Toolsets off: manage, execute, agents ") for line in lines)
    env = tmux.server_env(LIBTMUX_TOOLSETS="inspect,manage,execute,teardown,agents")
    async with open_in_process(env) as client:
        assert client.initialized is not None
        lines = (client.initialized.instructions or "").splitlines()
    assert "Toolsets on: inspect, manage, execute, teardown, agents." in lines
    assert not any(line.startswith("Toolsets off") for line in lines)


@pytest.mark.anyio
@pytest.mark.parametrize("profile", ["rust", "swift"])
async def test_other_profiles_state_their_own_conventions(tmux: TmuxServer, profile: str) -> None:
    async with open_in_process(tmux.server_env(), profile) as client:
        assert client.initialized is not None
        text = client.initialized.instructions or ""
    assert "%3" in text and "one tmux server" in text
    assert "socket_name" not in text  # one socket per process: no per-call argument
    assert "inside tmux" not in text


MINIMAL = {"default": False, "toolsets": [], "environment": [], "instructions": ["x"]}
TOOLSET = {"name": "inspect", "default": True}
VARIABLE = {"name": "LIBTMUX_SOCKET", "meaning": "the socket name"}


@pytest.mark.parametrize(
    ("description", "complaint"),
    [
        ({"instuctions": []}, "'instuctions' was unexpected"),
        ({"instructions": ["pane {caller pane}"]}, "plain names"),
        ({"instructions": ["pane {caller_pane"]}, "instruction"),
        ({"text_unwraps": ""}, "text_unwraps"),
        ({"toolsets": [TOOLSET, TOOLSET]}, "toolsets inspect listed more than once"),
        ({"toolsets": [{"name": "inspect"}]}, "'default' is a required property"),
        ({"environment": [VARIABLE, VARIABLE]}, "LIBTMUX_SOCKET listed more than once"),
        ({"environment": [{"name": "tmux", "meaning": "x"}]}, "does not match"),
        ({"default": "yes"}, "is not of type 'boolean'"),
    ],
)
def test_codegen_refuses_a_profile_description_the_runtime_could_not_use(
    description: dict[str, object], complaint: str
) -> None:
    broken = {**MINIMAL, "toolsets": [TOOLSET], **description}
    with pytest.raises(ContractError, match=complaint):
        check_profile(Profile("python", (), broken))


def test_codegen_accepts_the_minimal_profile_description() -> None:
    check_profile(Profile("python", (), {**MINIMAL, "toolsets": [TOOLSET]}))


@pytest.mark.parametrize("defaults", [(), ("python", "rust")])
def test_codegen_refuses_profiles_unless_exactly_one_is_the_default(
    defaults: tuple[str, ...],
) -> None:
    profiles = [Profile(name, (), {**MINIMAL, "default": name in defaults}) for name in PROFILES]
    with pytest.raises(ContractError, match="exactly one profile"):
        check_profiles(profiles)
