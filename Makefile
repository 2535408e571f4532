# One entry point for people and CI. `make repro` and `make test` set everything up first if needed.
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.almanac-installed
PYTHON ?= python3
# Our own recipes call `python`, `dvc` and `ruff`: the project's. (dvc.yaml stages find .venv themselves.)
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export RAY_USAGE_STATS_ENABLED := 0

.PHONY: setup repro test lint bench clean-data

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock scripts/setup.sh
	PYTHON=$(PYTHON) bash scripts/setup.sh
	touch $(STAMP)

repro: setup
	dvc repro

test: setup lint
	python -m pytest -q

lint: setup
	ruff check .
	ruff format --check .
	mypy

bench: setup
	python -m bench.dedup
	python -m bench.ingest
	python -m bench.llm
	python -m bench.gdelt_ingest

clean-data:
	rm -rf data/ingest data/articles data/dedup
