"""The generated tree: deterministic, importable, faithful to the contracts and the seeds.

The generator runs once per module into a temporary directory; every test
reads that fresh tree. Only what a client or a reader sees is snapshotted
(test_codegen/snapshots/, excluded from lint and type checks like generated/):
each profile's advertised tools.json and its rendered reference pages. The
generated Python is not: it is committed under generated/, and both ``make
check`` (regenerate into a temporary directory, ``diff -r`` against generated/)
and ``test_fresh_regen_equals_the_committed_file`` fail when it is stale.
Refresh the snapshots with ``--force-regen``.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel
from pytest_regressions.file_regression import FileRegressionFixture

from codegen.contract_file import advertised, read_contract
from codegen.generate import generate_all
from codegen.model import Tool, load_profile, tool_contract_paths
from codegen.surfaces import Prompt, Resource
from scripts.lab.client import ROOT
from tests.helpers.contracts import CONTRACTS
from tmux_contract_mcp.profiles import PROFILES

UPSTREAM = CONTRACTS / "upstream"
COMMITTED = ROOT / "generated"
PACKAGE = "tmux_contract_mcp.generated"

COMMITTED_FILES = sorted(
    path for path in COMMITTED.rglob("*") if path.is_file() and "__pycache__" not in path.parts
)
COMMITTED_RELPATHS = [path.relative_to(COMMITTED).as_posix() for path in COMMITTED_FILES]
PYTHON_RELPATHS = [rel for rel in COMMITTED_RELPATHS if rel.endswith(".py")]
# What a client is sent (tools.json) or a reader reads (docs/): snapshotted once each.
SEEN_RELPATHS = [
    rel for rel in COMMITTED_RELPATHS if rel.endswith("/tools.json") or "/docs/" in rel
]

_DECODER = json.JSONDecoder()


class Regen(NamedTuple):
    root: Path
    files: list[Path]


@pytest.fixture(scope="module")
def original_datadir() -> Path:
    """Snapshots under a ``snapshots`` directory, which ruff and mypy skip."""
    return Path(__file__).with_suffix("") / "snapshots"


@pytest.fixture(scope="module")
def regen(tmp_path_factory: pytest.TempPathFactory) -> Regen:
    root = tmp_path_factory.mktemp("regen") / "generated"
    files = generate_all(CONTRACTS, root)
    return Regen(root, files)


def snapshot_name(rel: str) -> str:
    """``python/models/select_pane.py`` -> ``generated-python-models-select_pane``."""
    return "-".join(("generated", *Path(rel).with_suffix("").parts))


def module_name(rel: str) -> str:
    """``rust/models/select_pane.py`` -> ``tmux_contract_mcp.generated.rust.models.select_pane``."""
    parts = Path(rel).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def fenced_json_blocks(text: str) -> dict[str, str]:
    """Every ```json fence, keyed by the label line before it, fences included."""
    pattern = re.compile(
        r"^(?P<label>[^\n]+)\n\n(?P<block>```json\n.*?^```)", re.MULTILINE | re.DOTALL
    )
    return {m.group("label"): m.group("block") for m in pattern.finditer(text)}


def json_text_after(text: str, label: str) -> str:
    """The exact text of the first JSON object after the line ``label``."""
    line = re.search(rf"^{re.escape(label)}$", text, re.MULTILINE)
    assert line is not None, f"no line {label!r}"
    start = text.index("{", line.end())
    _, end = _DECODER.raw_decode(text, start)
    return text[start:end]


def json_spans(text: str) -> list[str]:
    """The exact text of every top-level JSON object in ``text``, in order."""
    spans = []
    pos = text.find("{")
    while pos >= 0:
        _, end = _DECODER.raw_decode(text, pos)
        spans.append(text[pos:end])
        pos = text.find("{", end)
    return spans


def seed_annotations(text: str) -> dict[str, Any]:
    """``destructiveHint: true`` lines between ``Annotations#`` and ``Protocol data#``."""
    section = re.search(r"^Annotations#\n(.*?)^Protocol data#", text, re.MULTILINE | re.DOTALL)
    assert section is not None, "no Annotations# section"
    annotations: dict[str, Any] = {}
    for line in section.group(1).splitlines():
        if line.strip():
            key, value = (part.strip() for part in line.split(":"))
            annotations[key] = json.loads(value)
    return annotations


def seed(name: str) -> str:
    return (UPSTREAM / name).read_text(encoding="utf-8")


def page(regen: Regen, profile: str, tool: str) -> str:
    return (regen.root / profile / "docs" / f"{tool}.md").read_text(encoding="utf-8")


def test_regen_writes_exactly_the_committed_files(regen: Regen) -> None:
    fresh = [path.relative_to(regen.root).as_posix() for path in regen.files]
    assert fresh == COMMITTED_RELPATHS


@pytest.mark.parametrize("rel", SEEN_RELPATHS)
def test_advertised_listing_and_reference_page_match_their_snapshot(
    regen: Regen, rel: str, file_regression: FileRegressionFixture
) -> None:
    text = (regen.root / rel).read_text(encoding="utf-8")
    file_regression.check(text, basename=snapshot_name(rel), extension=Path(rel).suffix)


@pytest.mark.parametrize("rel", COMMITTED_RELPATHS)
def test_fresh_regen_equals_the_committed_file(regen: Regen, rel: str) -> None:
    assert (regen.root / rel).read_bytes() == (COMMITTED / rel).read_bytes()


@pytest.mark.parametrize("rel", PYTHON_RELPATHS)
def test_generated_python_module_imports(rel: str) -> None:
    module = importlib.import_module(module_name(rel))
    assert module.__file__ is not None
    assert Path(module.__file__).resolve() == (COMMITTED / rel).resolve()


@pytest.mark.parametrize("profile", PROFILES)
def test_registry_entries_name_models_their_module_defines(profile: str) -> None:
    registry = importlib.import_module(f"{PACKAGE}.{profile}.registry")
    tools = load_profile(CONTRACTS, profile, ROOT).tools
    assert [entry.name for entry in registry.TOOLS] == [tool.name for tool in tools]
    for entry, tool in zip(registry.TOOLS, tools, strict=True):
        assert entry.contract == tool.relpath
        assert entry.toolset == tool.toolset
        models = importlib.import_module(entry.models_module)
        for class_name in (entry.input_model, entry.output_model):
            model = getattr(models, class_name)
            assert isinstance(model, type)
            assert issubclass(model, BaseModel)
            assert model.__module__ == entry.models_module


@pytest.mark.parametrize("profile", PROFILES)
def test_registry_resource_and_prompt_entries_name_models_their_module_defines(
    profile: str,
) -> None:
    registry = importlib.import_module(f"{PACKAGE}.{profile}.registry")
    loaded = load_profile(CONTRACTS, profile, ROOT)
    assert [entry.name for entry in registry.RESOURCES] == [r.name for r in loaded.resources]
    assert [entry.name for entry in registry.PROMPTS] == [p.name for p in loaded.prompts]
    for entry, resource in zip(registry.RESOURCES, loaded.resources, strict=True):
        assert (entry.contract, entry.uri, entry.mime_type) == (
            resource.relpath,
            resource.uri,
            resource.mime_type,
        )
        assert dict(entry.complete) == resource.complete
        models = importlib.import_module(entry.models_module)
        names = [entry.variables_model] + ([entry.result_model] if entry.result_model else [])
        assert (entry.result_model is not None) == resource.is_json
        for class_name in names:
            model = getattr(models, class_name)
            assert issubclass(model, BaseModel)
            assert model.__module__ == entry.models_module
    for prompt_entry, prompt in zip(registry.PROMPTS, loaded.prompts, strict=True):
        assert prompt_entry.contract == prompt.relpath
        assert dict(prompt_entry.complete) == prompt.complete
        model = getattr(
            importlib.import_module(prompt_entry.models_module), prompt_entry.arguments_model
        )
        assert issubclass(model, BaseModel)


@pytest.mark.parametrize("profile", PROFILES)
def test_resources_and_prompts_json_list_the_advertised_contracts_by_name(
    regen: Regen, profile: str
) -> None:
    for kind, key in (("resources", "resources"), ("prompts", "prompts")):
        paths = sorted((CONTRACTS / profile / kind).glob("*.json"))
        expected = sorted(
            (advertised(read_contract(path)) for path in paths), key=lambda c: c["name"]
        )
        listing = json.loads((regen.root / profile / f"{kind}.json").read_text(encoding="utf-8"))
        assert "do not edit" in listing["generated"]
        assert listing[key] == expected
        assert [list(item) for item in listing[key]] == [list(item) for item in expected]


# A JSON resource answers with a tool's result (or that result plus its children's rows):
# its reference page must carry exactly that tool's schema, inlined from the tool contract.
RESOURCE_RESULTS = [
    ("get_sessions", "list_sessions", ("outputSchema", "properties", "result"), None),
    ("get_session_windows", "list_windows", ("outputSchema", "properties", "result"), None),
    ("get_pane", "get_pane_info", ("outputSchema",), None),
    ("get_session", "get_session_info", ("outputSchema",), ("windows", "list_windows")),
    ("get_window", "get_window_info", ("outputSchema",), ("panes", "list_panes")),
]


@pytest.mark.parametrize(("resource", "tool", "pointer", "children"), RESOURCE_RESULTS)
def test_resource_page_carries_the_matching_tools_result_schema(
    regen: Regen,
    resource: str,
    tool: str,
    pointer: tuple[str, ...],
    children: tuple[str, str] | None,
) -> None:
    text = (regen.root / "python" / "docs" / "resources" / f"{resource}.md").read_text("utf-8")
    rendered = json.loads(json_text_after(text, "Result schema"))
    expected: Any = read_contract(CONTRACTS / "python" / f"{tool}.json")
    for key in pointer:
        expected = expected[key]
    if children is None:
        assert rendered == expected
        return
    field, rows_tool = children
    rows = read_contract(CONTRACTS / "python" / f"{rows_tool}.json")["outputSchema"]
    first, second = rendered["allOf"]
    assert first == expected
    assert second["properties"][field] == rows["properties"]["result"]
    assert second["required"] == [field]


@pytest.mark.parametrize(
    ("seed_name", "profile", "tool"),
    [
        ("001_60ccaf28378a7ec3.txt", "rust", "select_pane"),
        ("002_01fc082bec1ea19d.txt", "swift", "call_read_tools_batch"),
    ],
)
def test_reference_page_carries_the_seeds_fenced_json_blocks(
    regen: Regen, seed_name: str, profile: str, tool: str
) -> None:
    expected = fenced_json_blocks(seed(seed_name))
    assert list(expected) == ["Input schema", "Output schema", "Tool annotations"]
    text = page(regen, profile, tool)
    for block in expected.values():
        assert block in text
    assert fenced_json_blocks(text) == expected


def test_rust_reference_page_carries_the_raw_contracts_json_blocks(regen: Regen) -> None:
    blocks = json_spans(seed("000_bf8c68d719f0db61.txt"))
    assert len(blocks) == 3
    text = page(regen, "rust", "select_pane")
    for block in blocks:
        assert block in text


PYTHON_SEEDS = [
    ("003_94e15889dca86bdb.txt", "select_pane"),
    ("004_db5d5c6ba6c575fd.txt", "find_pane_by_position"),
]


@pytest.mark.parametrize(("seed_name", "tool"), PYTHON_SEEDS)
@pytest.mark.parametrize("label", ["Input schema", "Output schema"])
def test_python_reference_page_carries_the_seeds_schema_text(
    regen: Regen, seed_name: str, tool: str, label: str
) -> None:
    block = json_text_after(seed(seed_name), label)
    text = page(regen, "python", tool)
    assert f"{label}\n\n```json\n{block}\n```" in text


@pytest.mark.parametrize(("seed_name", "tool"), PYTHON_SEEDS)
def test_python_reference_page_carries_the_seeds_annotations(
    regen: Regen, seed_name: str, tool: str
) -> None:
    expected = seed_annotations(seed(seed_name))
    assert set(expected) == {"destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"}
    rendered = json.loads(json_text_after(page(regen, "python", tool), "Tool annotations"))
    assert rendered == expected


@pytest.mark.parametrize("profile", PROFILES)
def test_tools_json_lists_the_advertised_contracts_by_name(regen: Regen, profile: str) -> None:
    contracts = [read_contract(path) for path in tool_contract_paths(CONTRACTS, profile)]
    expected = sorted((advertised(contract) for contract in contracts), key=lambda c: c["name"])
    listing = json.loads((regen.root / profile / "tools.json").read_text(encoding="utf-8"))
    assert set(listing) == {"generated", "tools"}
    assert "do not edit" in listing["generated"]
    listed = listing["tools"]
    assert listed == expected
    assert [list(tool) for tool in listed] == [list(tool) for tool in expected]


def expected_sources(rel: str) -> list[str]:
    """The contract paths a generated module is made from."""
    parts = Path(rel).parts
    if rel == "base.py":
        return ["codegen/templates/base.py.j2"]
    if len(parts) == 1:
        return ["contracts/"]
    profile = load_profile(CONTRACTS, parts[0], ROOT)
    items: list[Tool | Resource | Prompt] = [*profile.tools, *profile.resources, *profile.prompts]
    if parts[1:2] == ("models",) and parts[-1] != "__init__.py":
        return [item.relpath for item in items if f"{item.module}.py" == parts[-1]]
    return [item.relpath for item in items]


@pytest.mark.parametrize("rel", PYTHON_RELPATHS)
def test_generated_python_file_docstring_says_do_not_edit_and_names_its_sources(
    regen: Regen, rel: str
) -> None:
    docstring = ast.get_docstring(ast.parse((regen.root / rel).read_text(encoding="utf-8")))
    assert docstring is not None
    assert "do not edit" in docstring
    sources = expected_sources(rel)
    assert sources
    for source in sources:
        assert source in docstring
