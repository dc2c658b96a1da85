# Set-up and the two main jobs. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is needed once, to export the bundled all-MiniLM-L6-v2 weights to ONNX; pin the CPU
# build (an unpinned torch pulls several GB of CUDA packages).
TORCH ?= torch==2.13.0

.PHONY: install run test bench lint clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[local-export,dev]"
	$(BIN)/agent-memory model export
	touch $@

run: install
	$(BIN)/agent-memory demo

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/run_all.py

lint: install
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) .pytest_cache build dist
