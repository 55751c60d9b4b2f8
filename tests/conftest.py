"""The suite's root conftest: what every test module shares is one plugin, tests/plugin.py."""

pytest_plugins = ["tests.plugin"]
