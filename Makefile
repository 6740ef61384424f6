# atmsim developer commands. The two quick-start commands are `make reproduce` and `make test`:
# each sets everything up (a virtualenv in .venv, the Python dependencies, the Rust extension)
# and then runs.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup reproduce test test-rust test-python slow bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q "maturin>=1.5,<2" "numpy>=1.22" "pandas>=1.5" "matplotlib>=3.5" "tqdm>=4.60" "pytest>=7"
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release -q

reproduce: setup
	$(BIN)/atmsim reproduce ubr-plus --out results/ubr-plus
	$(BIN)/atmsim reproduce erica-testing --out results/erica-testing
	$(BIN)/atmsim reproduce abr-buffers --out results/abr-buffers
	$(BIN)/atmsim reproduce worst-case --out results/worst-case

test-rust:
	cargo test --workspace --exclude atmsim-py --release -q

test-python: setup
	$(BIN)/pytest -q

test: setup test-rust test-python

slow: setup
	$(BIN)/pytest -q -m slow

bench: setup
	$(BIN)/atmsim bench

clean:
	rm -rf $(VENV) target results
