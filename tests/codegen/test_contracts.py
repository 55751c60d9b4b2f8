"""The vendored contracts: where they come from, and that they can be served."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codegen.checks import ContractError, check_profile, check_tool
from codegen.contract_file import METADATA_KEY, advertised, dumps_contract, read_contract
from codegen.model import load_profile, tool_contract_paths
from codegen.vendor import UPSTREAM, VENDORED, Vendored, extract
from scripts.lab.client import ROOT
from tests.helpers.contracts import CONTRACTS, load_tool, profile_of
from tmux_contract_mcp.profiles import PROFILES

SHARED_SEEDS = ROOT.parent / "shared" / "seeds"
SKELETON = ROOT.parent / "shared" / "reference" / "python-profile-skeleton.json"

CONTRACT_FILES = sorted(
    path for profile in PROFILES for path in tool_contract_paths(CONTRACTS, profile)
)

# sha256 of the seed documents as vendored; used when ../shared/seeds is absent.
SEED_SHA256 = {
    "000_bf8c68d719f0db61.txt": "822e227156ae55585ec96b543b1a460b04bdc256358e6084581d23cc4a7a45c9",
    "001_60ccaf28378a7ec3.txt": "3a434d42e781a909ead4b9b93a625e4b8cd793882123bd9a0840632a8925f404",
    "002_01fc082bec1ea19d.txt": "9d3b2e7559b6bfc36e5a265c58aed7f105595397e38d7bbe6e28c647154f691a",
    "003_94e15889dca86bdb.txt": "438e2ccd9de88be753e21656c054a08d8be48b5999b90fafc3cb5e1022e023ea",
    "004_db5d5c6ba6c575fd.txt": "4b47365e8a6049fc08fa6643a09dafe34eae87bdf1090be469e901a0aa885d04",
    "INDEX.md": "2d404020779d29c30c6918798b2873bdaf95a66962d8f2945e6b212d34c3702b",
}

# The python seed tools' surface as libtmux-mcp 0.1.0a22 has it; used when the
# reference skeleton is absent.
PANE_FIELDS = {
    "is_caller",
    "pane_active",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    "pane_at_top",
    "pane_bottom",
    "pane_current_command",
    "pane_current_path",
    "pane_height",
    "pane_id",
    "pane_index",
    "pane_left",
    "pane_pid",
    "pane_right",
    "pane_title",
    "pane_top",
    "pane_tty",
    "pane_width",
    "session_id",
    "window_id",
}
MUTATING_OPEN_WORLD = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
PYTHON_SEED_SURFACE: dict[str, dict[str, Any]] = {
    "select_pane": {
        "toolset": "manage",
        "input_properties": {
            "direction",
            "pane_id",
            "session_id",
            "session_name",
            "socket_name",
            "window_id",
            "window_index",
        },
        "input_required": [],
        "output_properties": PANE_FIELDS,
        "output_required": ["pane_id"],
        "annotations": MUTATING_OPEN_WORLD,
    },
    "find_pane_by_position": {
        "toolset": "inspect",
        "input_properties": {
            "corner",
            "session_id",
            "session_name",
            "socket_name",
            "window_id",
            "window_index",
        },
        "input_required": ["corner"],
        "output_properties": PANE_FIELDS,
        "output_required": ["pane_id"],
        "annotations": MUTATING_OPEN_WORLD,
    },
}


def surface(toolset: str, contract: dict[str, Any]) -> dict[str, Any]:
    """The parts of a tool the python profile must share with libtmux-mcp."""
    return {
        "toolset": toolset,
        "input_properties": set(contract["inputSchema"].get("properties", {})),
        "input_required": list(contract["inputSchema"].get("required", [])),
        "output_properties": set(contract["outputSchema"].get("properties", {})),
        "output_required": list(contract["outputSchema"].get("required", [])),
        "annotations": dict(contract["annotations"]),
    }


def sha256_of(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
        if path.is_file()
    }


def vendored_id(entry: Vendored) -> str:
    return f"{entry.profile}/{entry.tool}"


def contract_id(path: Path) -> str:
    return path.relative_to(CONTRACTS).as_posix()


def test_every_profile_has_contracts() -> None:
    assert {profile_of(path) for path in CONTRACT_FILES} == set(PROFILES)


@pytest.mark.parametrize("entry", VENDORED, ids=vendored_id)
def test_reextracting_a_vendored_contract_reproduces_the_committed_file(entry: Vendored) -> None:
    path = CONTRACTS / entry.profile / f"{entry.tool}.json"
    assert dumps_contract(extract(entry)) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", CONTRACT_FILES, ids=contract_id)
def test_contract_file_passes_check_tool(path: Path) -> None:
    tool = load_tool(path)
    check_tool(tool)
    assert tool.relpath == path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda c: c[METADATA_KEY].pop("toolset"), "toolset must name one of"),
        (lambda c: c.pop("outputSchema"), "no 'outputSchema'"),
        (lambda c: c.update(surprise=1), "unknown keys ['surprise']"),
        (lambda c: c["annotations"].update(dangerHint=True), "unknown annotations"),
    ],
    ids=["no-toolset", "no-output-schema", "unknown-key", "unknown-annotation"],
)
def test_check_tool_rejects_a_broken_contract(
    breakage: Callable[[dict[str, Any]], object], message: str
) -> None:
    tool = load_tool(CONTRACTS / "rust" / "select_pane.json")
    contract = copy.deepcopy(tool.contract)
    breakage(contract)
    with pytest.raises(ContractError, match=re.escape(message)):
        check_tool(dataclasses.replace(tool, contract=contract))


def test_check_profile_rejects_a_tool_whose_toolset_the_profile_does_not_declare() -> None:
    profile = load_profile(CONTRACTS, "rust", ROOT)
    tool, *others = profile.tools
    contract = copy.deepcopy(tool.contract)
    contract[METADATA_KEY]["toolset"] = "destroy"
    changed = dataclasses.replace(tool, contract=contract)
    broken = dataclasses.replace(profile, tools=(changed, *others))
    with pytest.raises(ContractError, match="'destroy' is not a toolset of"):
        check_profile(broken)


def test_check_tool_rejects_a_default_that_breaks_its_own_schema() -> None:
    tool = load_tool(CONTRACTS / "python" / "select_pane.json")
    contract = copy.deepcopy(tool.contract)
    contract["inputSchema"]["properties"]["direction"]["default"] = "sideways"
    with pytest.raises(ContractError, match="default at inputSchema/properties/direction"):
        check_tool(dataclasses.replace(tool, contract=contract))


def test_upstream_seeds_are_byte_identical_to_the_shared_seeds() -> None:
    expected = sha256_of(SHARED_SEEDS) if SHARED_SEEDS.is_dir() else SEED_SHA256
    seeds = {
        name: digest
        for name, digest in sha256_of(UPSTREAM).items()
        if not name.endswith("-profile-skeleton.json")
    }
    assert seeds == expected


@pytest.mark.parametrize("path", CONTRACT_FILES, ids=contract_id)
def test_contract_metadata_names_a_toolset_and_is_never_advertised(path: Path) -> None:
    contract = read_contract(path)
    metadata = contract[METADATA_KEY]
    assert metadata["toolset"] in load_profile(CONTRACTS, profile_of(path), ROOT).toolsets
    for source in metadata.get("source", []):
        assert (ROOT / source).is_file(), source
    wire = advertised(contract)
    assert METADATA_KEY not in wire
    assert list(wire) == [key for key in contract if key != METADATA_KEY]
    assert all(wire[key] == contract[key] for key in wire)


@pytest.mark.parametrize("entry", VENDORED, ids=vendored_id)
def test_vendored_contract_metadata_names_its_seeds_and_toolset(entry: Vendored) -> None:
    contract = read_contract(CONTRACTS / entry.profile / f"{entry.tool}.json")
    assert contract[METADATA_KEY] == {
        "toolset": entry.toolset,
        "source": [
            f"contracts/upstream/{source}"
            for source in (*entry.sources, *([entry.skeleton] if entry.skeleton else []))
        ],
        **({"cut_to_served": list(entry.cut_to_served)} if entry.cut_to_served else {}),
    }


@pytest.mark.parametrize("name", sorted(PYTHON_SEED_SURFACE))
def test_python_seed_contract_matches_the_python_profile_skeleton(name: str) -> None:
    contract = read_contract(CONTRACTS / "python" / f"{name}.json")
    actual = surface(contract[METADATA_KEY]["toolset"], contract)
    assert actual == PYTHON_SEED_SURFACE[name]
    if SKELETON.is_file():
        skeleton = json.loads(SKELETON.read_text(encoding="utf-8"))
        (reference,) = (tool for tool in skeleton["tools"] if tool["name"] == name)
        assert actual == surface(reference["toolset"], reference)


SWIFT = CONTRACTS / "swift"
BATCH = "call_read_tools_batch"
SWIFT_CONTRACT_FILES = sorted(SWIFT.glob("*.json"))
FAMILY_ANNOTATIONS = MUTATING_OPEN_WORLD
# get_server_info reports only `running` when it cannot say more.
OPEN_TOP_LEVEL = {"get_server_info": ["running"]}


def batch_arguments() -> dict[str, dict[str, Any]]:
    """Each inner tool's `arguments` schema as the batch contract embeds it."""
    batch = read_contract(SWIFT / f"{BATCH}.json")
    operations = batch["inputSchema"]["properties"]["operations"]["items"]["oneOf"]
    return {op["properties"]["tool"]["const"]: op["properties"]["arguments"] for op in operations}


BATCH_ARGUMENTS = batch_arguments()


def object_schemas(schema: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every object schema in an output schema, walking properties, items and map values."""
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    found: list[tuple[str, dict[str, Any]]] = []
    if "object" in (kind if isinstance(kind, list) else [kind]):
        found.append((path, schema))
    for name, value in schema.get("properties", {}).items():
        found.extend(object_schemas(value, f"{path}/properties/{name}"))
    found.extend(object_schemas(schema.get("items"), f"{path}/items"))
    found.extend(object_schemas(schema.get("additionalProperties"), f"{path}/additionalProperties"))
    return found


def unclosed_objects(output_schema: dict[str, Any], top_required: list[str] | None) -> list[str]:
    """Paths of object schemas that are open or leave a property optional.

    A map (``additionalProperties`` is a schema) must declare no properties and
    require none (the family leaves ``required`` out of a map);
    ``top_required`` overrides what the top level must require.
    """
    problems = []
    for where, schema in object_schemas(output_schema, "outputSchema"):
        properties = sorted(schema.get("properties", {}))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            if properties or schema.get("required", []) != []:
                problems.append(f"{where}: a map with fixed properties")
            continue
        if extra is not False:
            problems.append(f"{where}: additionalProperties is not false")
        required = schema.get("required")
        if where == "outputSchema" and top_required is not None:
            if required != top_required:
                problems.append(f"{where}: requires {required}, not {top_required}")
        elif sorted(required or []) != properties:
            problems.append(f"{where}: requires {required}, not every property")
    return problems


def test_swift_inner_contracts_are_exactly_the_tools_the_batch_may_call() -> None:
    inspect = {
        path.stem
        for path in SWIFT_CONTRACT_FILES
        if read_contract(path)[METADATA_KEY]["toolset"] == "inspect"
    }
    inner = inspect - {BATCH, "wait_for_text"}  # wait_for_text waits on its own clock
    assert len(BATCH_ARGUMENTS) == 16
    assert inner == set(BATCH_ARGUMENTS)


@pytest.mark.parametrize("tool", sorted(BATCH_ARGUMENTS))
def test_swift_inner_input_schema_equals_the_batchs_embedded_arguments(tool: str) -> None:
    contract = read_contract(SWIFT / f"{tool}.json")
    assert contract["name"] == tool
    assert contract[METADATA_KEY]["toolset"] == "inspect"
    assert contract["inputSchema"] == BATCH_ARGUMENTS[tool]
    assert json.dumps(contract["inputSchema"]) == json.dumps(BATCH_ARGUMENTS[tool])


@pytest.mark.parametrize("path", SWIFT_CONTRACT_FILES, ids=contract_id)
def test_swift_output_objects_are_closed_and_require_every_property(path: Path) -> None:
    output_schema = read_contract(path)["outputSchema"]
    assert object_schemas(output_schema, "outputSchema")[0][0] == "outputSchema"
    assert unclosed_objects(output_schema, OPEN_TOP_LEVEL.get(path.stem)) == []


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (
            lambda s: s["properties"]["pane"].pop("additionalProperties"),
            "outputSchema/properties/pane: additionalProperties is not false",
        ),
        (
            lambda s: s["properties"]["capture"]["required"].remove("droppedLines"),
            "outputSchema/properties/capture: requires ['lines', 'paneId'], not every property",
        ),
        (
            lambda s: s.update(required=["pane"]),
            "outputSchema: requires ['pane'], not every property",
        ),
    ],
    ids=["open-nested-object", "optional-nested-property", "optional-top-level-property"],
)
def test_closure_check_finds_an_open_or_optional_object_at_any_depth(
    breakage: Callable[[dict[str, Any]], object], message: str
) -> None:
    output_schema = copy.deepcopy(read_contract(SWIFT / "snapshot_pane.json")["outputSchema"])
    breakage(output_schema)
    assert unclosed_objects(output_schema, None) == [message]


def test_closure_check_holds_get_server_info_to_requiring_exactly_running() -> None:
    output_schema = copy.deepcopy(read_contract(SWIFT / "get_server_info.json")["outputSchema"])
    assert unclosed_objects(output_schema, None) != []
    output_schema["required"].append("version")
    assert unclosed_objects(output_schema, ["running"]) == [
        "outputSchema: requires ['running', 'version'], not ['running']"
    ]


@pytest.mark.parametrize("path", SWIFT_CONTRACT_FILES, ids=contract_id)
def test_swift_annotations_follow_the_family_convention(path: Path) -> None:
    contract = read_contract(path)
    annotations = dict(contract["annotations"])
    assert annotations.pop("title") == contract["title"]
    assert annotations == FAMILY_ANNOTATIONS
