"""Every test under tests/e2e/ is marked e2e: the tests that start the command as a process.

``pytest -m "not e2e"`` leaves them out; the plugin (tests/plugin.py) fails a test elsewhere
that starts the command, so this folder is where such a test goes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)
