# atmsim developer commands. The two quick-start commands are `make reproduce` and `make test`:
# each sets everything up (a virtualenv in .venv, the Python dependencies, the Rust extension)
# and then runs.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup pgo-profile docs-setup docs reproduce test test-rust test-python slow bench sweep-example fuzz clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q "maturin>=1.5,<2" "numpy>=1.22" "pandas>=1.5" "matplotlib>=3.5" "tqdm>=4.60" "pytest>=7" "pyarrow>=12" "ray>=2.9" "tomli>=1.1; python_version < '3.11'" "tomli-w>=1.0" "jinja2>=3.0" "markdown-it-py>=2.0"
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH RUSTFLAGS="$$RUSTFLAGS $$($(PY) pgo/flags.py)" \
		$(BIN)/maturin develop --release -q --target-dir target/extension

# The engine is built with the profile in pgo/ when the compiler's LLVM matches it (pgo/flags.py;
# docs/performance.md, "Profile-guided build"): the same results, faster. Its own target folder,
# so that `cargo test` (no profile) does not rebuild what the extension's build left, and back.
# `make pgo-profile` makes the profile anew after a change to the engine (needs
# `rustup component add llvm-tools`).
pgo-profile: setup
	$(BIN)/python pgo/make_profile.py
	$(MAKE) setup

# All five reproductions on one pool of workers (results/ID each): the same results as
# `atmsim reproduce ID` one after the other, with both cores busy to the end.
reproduce: setup
	$(BIN)/atmsim reproduce all --out results

test-rust:
	cargo test --workspace --exclude atmsim-py --release -q

test-python: docs-setup
	ATMSIM_FUZZ_SEED=$${ATMSIM_FUZZ_SEED:-1} $(BIN)/pytest -q

# The docs site's tools (PyPI): mkdocs-material, mkdocstrings, mkdocs-jupyter, nbclient, a kernel.
docs-setup: setup
	$(BIN)/pip install -q "mkdocs>=1.6" "mkdocs-material>=9.5" "mkdocstrings[python]>=0.26" "mkdocs-jupyter>=0.25" "nbclient>=0.10" "nbformat>=5.9" "ipykernel>=6.29" "ipywidgets>=8.0"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null

# The docs site in site/, strict (a broken link or a failing notebook cell fails it); the
# three tutorial notebooks are executed as part of the build (about a minute).
docs: docs-setup
	NO_MKDOCS_2_WARNING=1 PATH=$(abspath $(BIN)):$$PATH $(BIN)/mkdocs build --strict -q

test: setup test-rust test-python docs

slow: setup
	$(BIN)/pytest -q -m slow

# The scenario fuzzer (issue 18): 30 minutes of malformed scenarios, every 50th also through
# the CLI. `make test` runs a 60 s version (tests/test_hardening.py::test_fuzz_short).
FUZZ_SECONDS ?= 1800
fuzz: setup
	$(BIN)/python tests/fuzz/fuzz.py --seconds $(FUZZ_SECONDS) --seed $$(date +%s) --cli 50

bench: setup
	$(BIN)/atmsim bench

# The 100-point example sweep (about a minute on two cores) and its HTML report.
sweep-example: setup
	$(BIN)/atmsim sweep examples/sweeps/ubr_buffers.toml --out results/sweeps/ubr-buffers --report

clean:
	rm -rf $(VENV) target results site .cache
