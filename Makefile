# Everything runs inside .venv (Python 3.11), created on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: env tmux vendor regen check lint typecheck test demo workflow bench compare-peer clean

env: $(STAMP)

# The tests and the demo need a tmux binary; install Debian's when it is missing.
tmux:
	@command -v tmux >/dev/null || { \
	  command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] || { echo "install tmux (3.3 or newer) first" >&2; exit 1; }; \
	  echo "installing tmux with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; }

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	@echo "installing the environment into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --upgrade pip >$(VENV)/install.log 2>&1 && \
	$(BIN)/python -m pip install -e '.[dev]' >>$(VENV)/install.log 2>&1 || \
	{ tail -40 $(VENV)/install.log >&2; exit 1; }
	@touch $@

# Extract the vendored contracts from the seed documents in contracts/upstream/.
vendor: env
	$(BIN)/python -m codegen.vendor

# Regenerate generated/ from contracts/.
regen: env
	$(BIN)/python -m codegen

# Fail when generated/ or the vendored contracts differ from a fresh run, or lint fails.
check: env
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(BIN)/python -m codegen --out "$$tmp/generated" && \
	diff -r --exclude=__pycache__ generated "$$tmp/generated" && \
	$(BIN)/python -m codegen.vendor --out "$$tmp/contracts" 2>/dev/null && \
	for f in $$(cd "$$tmp/contracts" && find . -name '*.json'); do \
	  cmp "contracts/$$f" "$$tmp/contracts/$$f" || exit 1; done && \
	echo "generated/ and the vendored contracts match a fresh run"
	$(MAKE) --no-print-directory lint typecheck

lint: env
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy cannot follow the editable install's package-dir mapping, so it checks
# a copy laid out as the installed package (generated code included); errors
# under build/typecheck/tmux_contract_mcp/X point at runtime/, generated/ or handlers/.
TYPECHECK := build/typecheck
typecheck: env
	@rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)
	@cp -r runtime $(TYPECHECK)/tmux_contract_mcp
	@cp -r generated $(TYPECHECK)/tmux_contract_mcp/generated
	@cp -r handlers $(TYPECHECK)/tmux_contract_mcp/handlers
	MYPYPATH=$(TYPECHECK) $(BIN)/mypy -p tmux_contract_mcp -p codegen -p tests -p scripts

# The whole gate: generated code and contracts up to date, lint, types, then every test.
test: env tmux check
	$(BIN)/python -m pytest -q

demo: env tmux
	$(BIN)/python -m scripts.demo

# A whole agent workflow (create, split, build, wait, read, clean up) as a transcript.
workflow: env tmux
	$(BIN)/python -m scripts.workflow

# Latency against libtmux-mcp (installed into build/bench/peer-venv on first use),
# both over stdio on one private tmux server; raw samples in build/bench/results.json.
# The peer runs with its per-request logging off unless BENCH_ARGS has --peer-as-shipped.
# Pass options with BENCH_ARGS, e.g. make bench BENCH_ARGS='--iterations 50'.
bench: env tmux
	$(BIN)/python -m scripts.bench $(BENCH_ARGS)

# tools/list of --profile python against libtmux-mcp's: names, arguments, types, required.
# Narrow it with COMPARE_ARGS, e.g. make compare-peer COMPARE_ARGS='--toolsets inspect'.
compare-peer: env tmux
	$(BIN)/python -m scripts.compare_peer $(COMPARE_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
