# The two commands the README documents:
#   make run   set up everything, bring up the local OpenSearch node, install templates and pipelines,
#              print the node's status
#   make test  set up everything, lint, type-check, and run unit + integration tests against the real
#              node (reused if running, else provisioned and stopped again afterwards)
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
LOCAL_CONFIG := control_plane/config/local.yaml
export BIOHYBRID_CONFIG ?= $(abspath $(LOCAL_CONFIG))

.PHONY: help setup run test lint unit integration node-up node-down status clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: $(BIN)/.installed ## create .venv and install the project with its dev and ops extras

$(BIN)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (Python 3.11 is required)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev,ops]"
	@touch $@

node-up: setup ## provision and start the local node (idempotent)
	cd ansible && ../$(BIN)/ansible-playbook site.yml

node-down: setup ## stop the local node
	cd ansible && ../$(BIN)/ansible-playbook site.yml -e opensearch_state=stopped

status: setup ## print the node's status
	$(BIN)/biohybrid --log-format text status

run: node-up ## set up, start the node, apply templates and pipelines, print status
	$(BIN)/biohybrid --log-format text apply
	$(BIN)/biohybrid --log-format text verify
	$(BIN)/biohybrid --log-format text status

lint: setup ## ruff and mypy
	$(BIN)/ruff check control_plane tests
	$(BIN)/ruff format --check control_plane tests
	$(BIN)/mypy

unit: setup ## unit tests only (no node)
	$(BIN)/pytest tests/unit

integration: setup ## integration tests against the local node
	$(BIN)/pytest tests/integration

test: lint ## lint, then every test (unit and integration)
	$(BIN)/pytest

clean: node-down ## stop the node and remove the project-local installs
	rm -rf .local .venv
