"""A tiny git + DVC repository with two commits of released splits, for the version-diff tests.

One DVC stage (make.py) writes OpenForesight-style splits and a MIRAI-style month file from params,
"asks an LLM" through a JSON-lines cache at params llm.cache_path (a miss answers with the upper-cased
title and appends it), reads an untracked, gitignored raw input and writes a metrics file (declared as DVC
metrics) and a stage counts file (a plain output, as the project's stage metrics are).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.project import dvc, dvc_init, run

MAKE = """
import json, os, yaml
import pyarrow as pa, pyarrow.parquet as pq

params = yaml.safe_load(open("params.yaml"))
cache_path = params["llm"]["cache_path"]
os.makedirs(os.path.dirname(cache_path), exist_ok=True)
cache = {}
if os.path.exists(cache_path):
    for line in open(cache_path):
        entry = json.loads(line)
        cache[entry["prompt"]] = entry["answer"]
misses = 0
def ask(prompt):
    global misses
    if prompt not in cache:
        misses += 1
        cache[prompt] = prompt.upper()
        with open(cache_path, "a") as handle:
            handle.write(json.dumps({"prompt": prompt, "answer": cache[prompt]}) + "\\n")
    return cache[prompt]

source = open("raw/source.txt").read().strip()
build = params["build"]
for split in ("test", "train"):
    ids = sorted(i for i, q in build["questions"].items() if q["split"] == split)
    columns = {
        "question_id": ids,
        "question_title": [build["questions"][i]["title"] for i in ids],
        "answer": [ask(build["questions"][i]["title"]) for i in ids],
        "news_source": [source] * len(ids),
    }
    if build["extra"]:
        columns["extra"] = [1.5] * len(ids)
    os.makedirs(f"data/foresight/splits/{split}", exist_ok=True)
    pq.write_table(pa.table(columns), f"data/foresight/splits/{split}/2025-05.parquet")
os.makedirs("data/mirai/queries", exist_ok=True)
pq.write_table(pa.table({"query_id": ["m-1", "m-2"], "query": ["A vs B", "C vs D"]}), "data/mirai/queries/2025-05.parquet")
os.makedirs("reports", exist_ok=True)
with open("reports/make.json", "w") as handle:
    json.dump({"questions": len(build["questions"]), "llm_calls": misses}, handle)
os.makedirs("reports/metrics", exist_ok=True)
with open("reports/metrics/make.json", "w") as handle:  # an output, not a declared metric
    json.dump({"train": sum(q["split"] == "train" for q in build["questions"].values())}, handle)
"""

DVC_YAML = """stages:
  make:
    cmd: python make.py
    params: [build]
    deps: [make.py, raw/source.txt]
    outs:
      - data/foresight/splits
      - data/mirai/queries
      - reports/metrics/make.json  # DVC-cached, as a build stage's metrics file is in dvc.yaml
    metrics:
      - reports/make.json:
          cache: false
"""

PARAMS_1 = {
    "llm": {"cache_path": "data/cache/llm.jsonl"},
    "build": {
        "extra": False,
        "questions": {
            "q-a": {"title": "Will A happen?", "split": "test"},
            "q-b": {"title": "Will B happen?", "split": "test"},
            "q-c": {"title": "Will C happen?", "split": "train"},
        },
    },
}
# Commit 2: q-b removed, q-d (test) and q-e (train) added, q-a's title (and so its answer) changed, and a
# float column "extra" added to both splits.
PARAMS_2 = {
    "llm": PARAMS_1["llm"],
    "build": {
        "extra": True,
        "questions": {
            "q-a": {"title": "Will A happen by May?", "split": "test"},
            "q-c": {"title": "Will C happen?", "split": "train"},
            "q-d": {"title": "Will D happen?", "split": "test"},
            "q-e": {"title": "Will E happen?", "split": "train"},
        },
    },
}


def git(args: list[str], cwd: Path) -> str:
    return run(["git", "-c", "user.name=Almanac", "-c", "user.email=almanac@example.com", *args], cwd).stdout


def commit_params(repo: Path, params: dict[str, object], message: str) -> None:
    """Write params, `dvc repro`, commit."""
    (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    dvc(["repro", "--quiet"], repo)
    git(["add", "-A"], repo)
    git(["commit", "-q", "-m", message], repo)


def head_objects(repo: Path) -> set[str]:
    """The cache object files the outputs in dvc.lock need (directory listings and their files)."""
    lock = yaml.safe_load((repo / "dvc.lock").read_text())
    hashes = [out["md5"] for stage in lock["stages"].values() for out in stage.get("outs", [])]
    for md5 in list(hashes):
        if md5.endswith(".dir"):
            listing = json.loads((repo / _object(md5)).read_text())
            hashes.extend(entry["md5"] for entry in listing)
    # Outputs with cache: false (git keeps them) have no cache object, unless DVC's run cache stored one.
    return {_object(md5) for md5 in hashes if (repo / _object(md5)).is_file()}


def _object(md5: str) -> str:
    return f".dvc/cache/files/md5/{md5[:2]}/{md5[2:]}"


class DiffRepo:
    def __init__(self, path: Path, objects_1: set[str], objects_2: set[str]) -> None:
        self.path = path
        self.only_in_1 = objects_1 - objects_2  # cache objects of commit 1 that commit 2 does not use
        assert self.only_in_1

    def copy(self, target: Path) -> Path:
        shutil.copytree(self.path, target, symlinks=True)
        return target


@pytest.fixture(scope="module")
def diff_repo(tmp_path_factory: pytest.TempPathFactory) -> DiffRepo:
    repo = tmp_path_factory.mktemp("diff") / "repo"
    repo.mkdir()
    run(["git", "init", "-q"], repo)
    # What `dvc init`, `dvc config core.site_cache_dir .dvc/site_cache` and `core.analytics false` leave,
    # written directly: ~2 s of CPU each as DVC processes.
    dvc_init(repo)
    (repo / "make.py").write_text(MAKE)
    (repo / "dvc.yaml").write_text(DVC_YAML)
    (repo / "raw").mkdir()
    (repo / "raw" / "source.txt").write_text("meridianherald.example\n")
    (repo / ".gitignore").write_text("/raw/\n/data/cache/\n")  # raw input: downloaded, never committed
    commit_params(repo, PARAMS_1, "one")
    objects_1 = head_objects(repo)
    commit_params(repo, PARAMS_2, "two")
    return DiffRepo(repo, objects_1, head_objects(repo))
