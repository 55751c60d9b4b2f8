"""Contract fuzzing: calls generated from each tool's own advertised input schema, sent
through the MCP client to a server on a private tmux server, and held to the invariants
every answer must keep (see ``engine``). ``python -m scripts.fuzz`` is ``make fuzz`` and
``make fuzz-compare``; ``tests/e2e/test_contract_fuzz.py`` runs a seeded slice of the same."""
