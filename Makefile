# Everything runs inside .venv, created on first use by any Python 3.11 or newer:
# PYTHON if given (make PYTHON=python3.13 ...), else the first new enough of python3,
# python3.14 ... python3.11 on PATH. scripts/setup.sh says what is missing, and as
# root with apt-get installs python3, python3.X-venv or tmux when they are.
PYTHON ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every package of .venv, pinned with its hashes (scripts/lock.py); make lock writes it.
LOCK := requirements.lock
# The uv that make lock writes the lock with.
UV_VERSION := 0.13.8

.PHONY: env lock tmux sshd vendor regen check lint typecheck test demo workflow workflow-ssh bench compare-peer compare-skeleton clean

env: $(STAMP)

# The tests and the demo need tmux 3.2 or newer: install it when missing, then check it.
tmux: env
	@sh scripts/setup.sh tmux
	@$(BIN)/python -m tmux_contract_mcp.handlers.tmux.transport.version

# The remote-tmux tests start a private OpenSSH server: install it when missing.
sshd:
	@sh scripts/setup.sh sshd

# .venv holds exactly the versions in the lock, checked against its hashes (a package an
# older lock left is removed), then the project itself, editable. Nothing is resolved here:
# the project goes in with --no-deps, built by the locked setuptools (--no-build-isolation).
# A lock that pyproject's dependencies have moved past is refused: run make lock.
$(STAMP): pyproject.toml $(LOCK)
	@python=$$(sh scripts/setup.sh python "$(PYTHON)") && \
	"$$python" -m scripts.lock check && \
	echo "creating $(VENV) with $$python (Python $$("$$python" -c 'import platform; print(platform.python_version())'))" && \
	"$$python" -m venv $(VENV)
	@echo "installing $(LOCK) into $(VENV) (log: $(VENV)/install.log)"
	@{ $(BIN)/python -m pip install --require-hashes -r $(LOCK) && \
	$(BIN)/python -m scripts.lock strays | xargs -r $(BIN)/python -m pip uninstall -y && \
	$(BIN)/python -m pip install --no-deps --no-build-isolation -e . ; } >$(VENV)/install.log 2>&1 || \
	{ tail -40 $(VENV)/install.log >&2; exit 1; }
	@touch $@

# Write $(LOCK) anew from pyproject.toml (its dependencies and the dev extra) with uv
# $(UV_VERSION), installed into .venv from PyPI; pins already in the lock are kept where
# pyproject still admits them. make lock LOCK_ARGS=--upgrade moves every package to its
# newest release instead. make env then installs the new lock.
LOCK_ARGS ?=
lock:
	@[ -x $(BIN)/python ] || { python=$$(sh scripts/setup.sh python "$(PYTHON)") && \
	echo "creating $(VENV) with $$python" && "$$python" -m venv $(VENV); }
	@[ "$$($(BIN)/uv --version 2>/dev/null | cut -d' ' -f2)" = "$(UV_VERSION)" ] || \
	$(BIN)/python -m pip install -q uv==$(UV_VERSION)
	$(BIN)/python -m scripts.lock compile $(BIN)/uv $(LOCK_ARGS)

# Extract the vendored contracts from the seed documents in contracts/upstream/.
vendor: env
	$(BIN)/python -m codegen.vendor

# Regenerate generated/ from contracts/.
regen: env
	$(BIN)/python -m codegen

# Fail when generated/ or the vendored contracts differ from a fresh run, or lint fails.
# This diff is what keeps the generated Python fresh: no test snapshots it (the
# snapshots hold only what a client or reader sees: tools.json and the reference pages).
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

# mypy finds a module only by directory names on its search path (mypy_path, the
# bases of the files given, site-packages and the directories .pth files list); it
# does not run the import hook through which the editable install maps runtime/ to
# tmux_contract_mcp (pyproject's package-dir), so it checks a copy laid out as the
# installed package (generated code included); errors under
# build/typecheck/tmux_contract_mcp/X point at runtime/, generated/ or handlers/.
TYPECHECK := build/typecheck
typecheck: env
	@rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)
	@cp -r runtime $(TYPECHECK)/tmux_contract_mcp
	@cp -r generated $(TYPECHECK)/tmux_contract_mcp/generated
	@cp -r handlers $(TYPECHECK)/tmux_contract_mcp/handlers
	MYPYPATH=$(TYPECHECK) $(BIN)/mypy -p tmux_contract_mcp -p codegen -p tests -p scripts

# The whole gate: generated code and contracts up to date, lint, types, then every test,
# on one worker per core (pytest-xdist). Each test file runs whole, in order, on one
# worker (--dist loadfile), so a module's shared tmux server and client are made once.
# TEST_ARGS passes more pytest options, e.g. make test TEST_ARGS='-n 0 -x'.
TEST_ARGS ?=
test: env tmux sshd check
	$(BIN)/python -m pytest -q -n auto --dist loadfile $(TEST_ARGS)

demo: env tmux
	$(BIN)/python -m scripts.demo

# A whole agent workflow (create, split, build, wait, read, clean up) as a transcript.
workflow: env tmux
	$(BIN)/python -m scripts.workflow

# The same workflow with the server started as --ssh to a private sshd on 127.0.0.1 that it
# starts and stops itself: an agent session driving a tmux server through ssh.
workflow-ssh: env tmux sshd
	$(BIN)/python -m scripts.workflow --ssh

# Latency of every profile against libtmux-mcp (installed into build/bench/peer-venv on first
# use), each timed over raw JSON-RPC against one private tmux server: per call (stdio; ours
# also through ssh and served over Streamable HTTP, timed by a raw HTTP POST client; --no-ssh,
# --no-http leave them out), at 10, 50 and 200 panes, cold start and memory; Markdown tables,
# raw samples in build/bench/results.json. The peer runs with its per-request logging off
# unless BENCH_ARGS has --peer-as-shipped. Pass options with BENCH_ARGS, e.g. make bench
# BENCH_ARGS='--iterations 50 --no-scale --profiles python' (python -m scripts.bench --help).
bench: env tmux sshd
	$(BIN)/python -m scripts.bench $(BENCH_ARGS)
	$(BIN)/python -m scripts.bench.agents

# tools/list of --profile python against libtmux-mcp's: names, arguments, types, required.
# Narrow it with COMPARE_ARGS, e.g. make compare-peer COMPARE_ARGS='--toolsets inspect'.
compare-peer: env tmux
	$(BIN)/python -m scripts.compare_peer $(COMPARE_ARGS)

# A profile's tools/list against its family's skeleton (contracts/upstream/<profile>-profile-skeleton.json):
# every difference as a JSON pointer with both values, then the tools not served yet.
# make compare-skeleton PROFILE=swift; COMPARE_ARGS='--static' reads generated/ instead.
PROFILE ?= swift
compare-skeleton: env
	$(BIN)/python -m scripts.compare_skeleton --profile $(PROFILE) $(COMPARE_ARGS)

# Contract fuzzing (scripts/fuzz): calls drawn from every tool's own input schema, on a private
# tmux server per profile, held to the invariants in scripts/fuzz/engine.py. Options in
# FUZZ_ARGS, e.g. make fuzz FUZZ_ARGS='--examples 500 --seed 7 --profiles python'.
# fuzz-compare runs libtmux-mcp (build/bench/peer-venv) and our profiles in one run and
# prints the Markdown table of both; both write build/fuzz/table.md and findings.json.
.PHONY: fuzz fuzz-compare
FUZZ_ARGS ?=
fuzz: env tmux
	$(BIN)/python -m scripts.fuzz $(FUZZ_ARGS)

fuzz-compare: env tmux
	$(BIN)/python -m scripts.fuzz --compare $(FUZZ_ARGS)

# Thousands of mixed calls (reads, writes, waits, batches) to one server per profile over
# stdio, on a private tmux server: the server's resident memory after start, and its resident
# memory, open descriptors, threads, child processes and the tmux client count after warm-up
# and at the end, with the memory's growth in percent. Fails when a call fails or a figure
# grows past its bound (memory: 4 MiB and 5 %). Pass options with SOAK_ARGS, e.g.
# make soak SOAK_ARGS='--calls 100000 --profile python' (about 20 minutes).
.PHONY: soak
SOAK_ARGS ?=
soak: env tmux
	$(BIN)/python -m scripts.soak $(SOAK_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
