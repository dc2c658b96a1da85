# Set-up and the two main jobs. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is needed once, to export the bundled all-MiniLM-L6-v2 weights to ONNX; pin the CPU
# build (an unpinned torch pulls several GB of CUDA packages).
TORCH ?= torch==2.13.0

# The open-source Cosmos DB test server the Cosmos store's tests run against (Node >= 20).
COSMOS_SERVER := .cache/cosmosdb-server/node_modules/@vercel/cosmosdb-server

.PHONY: install run test bench lint clean test-servers

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

test: install test-servers
	$(BIN)/python -m pytest -q

test-servers: $(COSMOS_SERVER)

$(COSMOS_SERVER):
	@if command -v npm >/dev/null; then \
		npm install -s --prefix .cache/cosmosdb-server --no-audit --no-fund @vercel/cosmosdb-server@1.0.1; \
	else echo "npm not found: the Cosmos DB store tests will be skipped"; fi

bench: install
	$(BIN)/python bench/run_all.py

lint: install
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) .pytest_cache build dist .cache
