# One entry point for people and CI. `make repro` and `make test` set everything up first if needed.
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.almanac-installed
PYTHON ?= python3
# Our own recipes call `python`, `dvc` and `ruff`: the project's. (dvc.yaml stages find .venv themselves.)
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export RAY_USAGE_STATS_ENABLED := 0

.PHONY: setup dag repro test test-fast lint bench clean-data ray-up ray-down

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock scripts/setup.sh
	PYTHON=$(PYTHON) bash scripts/setup.sh
	touch $(STAMP)

# dvc.yaml is rendered from the stage declarations (almanac/pipeline/): run after editing one, or code imports.
dag: setup
	python -m almanac.cli dag

# `dvc repro` quiet, one line per stage that ran and a summary line (almanac/core/repro.py); a no-op prints
# one line. ARGS go to dvc repro: `make repro ARGS=foresight_month@2025-03`.
repro: setup
	python -m almanac.core.repro $(ARGS)

# The whole suite (what CI runs), one pytest-xdist worker per logical core (TEST_WORKERS=0: one process): one line
# per test with its running count as it ends, so a slow or stuck test is named as it runs; the sample build
# that the whole-pipeline tests share (tests/support/sample_build.py) runs in the background from the start
# and prints its stage lines while a test waits for it; the 15 slowest at the end. `worksteal` rebalances
# the long tests at the end instead of leaving them queued behind one worker. ruff runs first (seconds);
# mypy runs as a test (tests/test_lint.py), beside the build instead of a minute or two before everything.
TEST_WORKERS ?= logical
test: setup
	ruff check .
	ruff format --check .
	python -m pytest -n $(TEST_WORKERS) --dist worksteal -v -o console_output_style=count --durations=15

# The tests not marked `slow` (pyproject.toml): under 3 minutes on 2 cores, for the edit-test loop.
test-fast: setup
	python -m pytest -q -m "not slow" --durations=5

lint: setup
	ruff check .
	ruff format --check .
	mypy

bench: setup
	python -m bench.dedup
	python -m bench.dedup_scale   # 20k and 200k articles; `python -m bench.dedup_scale --million` adds 1M (opt-in)
	python -m bench.ingest
	python -m bench.llm
	python -m bench.gdelt_ingest
	python -m bench.cli_startup
	python -m bench.stage_startup   # issue 26: CPU to import each stage (< 1 s); --repro adds make-repro wall / stage work
	python -m bench.futuresim_search
	python -m bench.noop_repro   # after `make repro`: times a no-op `dvc repro` of the built sample
	python -m bench.bombs          # issue 24: peak memory of the dump readers on size bombs
	python -m bench.ccnews_bombs   # ... of the CC-News readers
	python -m bench.fetch_bombs    # ... of the fetcher and page archives
	python -m bench.ray_dedup $(RAY_BENCH)   # `make bench RAY_BENCH=--large` adds 200k articles (minutes)

# One local Ray runtime for a whole `dvc repro` (README "Ray"): 127.0.0.1 only, token auth, recorded in
# .ray/cluster.json; stages join it when params.yaml says `ray.address: auto`. ray-down stops only it.
RAY_NODES ?= 1  # `make ray-up RAY_NODES=2`: a head and a worker raylet on this machine (multi-node trial)
ray-up: setup
	python -m almanac.core.ray_cli up --nodes $(RAY_NODES)

ray-down:
	python -m almanac.core.ray_cli down

clean-data:
	rm -rf data/ingest data/articles data/dedup
