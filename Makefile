PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test check bench docs clean

$(BIN)/odke:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	$(BIN)/python -m compileall -q src > /dev/null

$(VENV)/.dev: $(BIN)/odke pyproject.toml setup.py src/openodke/eval/engine/_keyhash.c
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/python -m compileall -q src > /dev/null
	touch $(VENV)/.dev

demo: $(BIN)/odke
	PATH=$(CURDIR)/$(BIN):$$PATH bash examples/demo.sh

test: $(VENV)/.dev
	$(BIN)/python -m pytest -n 2

check: $(VENV)/.dev
	$(BIN)/ruff format --check src tests bench
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2

$(VENV)/.docs: $(BIN)/odke pyproject.toml
	$(BIN)/pip install -q -e '.[docs]'
	touch $(VENV)/.docs

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

bench: $(VENV)/.dev
	for f in bench/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) demo-out site
