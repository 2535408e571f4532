"""`months` is the one list a user edits: the CC-News months, report scopes and split months follow from it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from almanac.core.month_lists import derived_lists
from almanac.core.params import ccnews_months, load_params, report_scopes, split_months
from almanac.core.params_schema import ParamsError

ROOT = Path(__file__).resolve().parents[1]
FOUR = ["2025-03", "2025-04", "2025-05", "2025-06"]


def _split(months: list[str], test: int, validation: int) -> dict[str, list[str]]:
    counts = {"test_month_count": test, "validation_month_count": validation}
    return split_months({"months": months, "foresight": {"split": counts}})


def test_split_months_take_test_from_the_newest_months() -> None:
    # 4 months, 1 test, 1 validation: June test, May validation, March and April train.
    assert _split(FOUR, 1, 1) == {"train": FOUR[:2], "validation": ["2025-05"], "test": ["2025-06"]}
    # 2 test months, no validation.
    assert _split(FOUR, 2, 0) == {"train": FOUR[:2], "validation": [], "test": FOUR[2:]}
    # More months asked than listed: test first, then validation, train empty.
    assert _split(["2025-05", "2025-06"], 1, 3) == {
        "train": [],
        "validation": ["2025-05"],
        "test": ["2025-06"],
    }
    # Months are sorted before splitting: a list typed out of order still tests the newest month.
    assert _split(["2025-06", "2025-04", "2025-05"], 1, 1)["test"] == ["2025-06"]


def test_ccnews_months_are_every_month_unless_the_source_is_off() -> None:
    assert ccnews_months({"months": FOUR}) == FOUR
    assert ccnews_months({"months": FOUR, "ccnews_ingest": {"raw_dir": "raw/cc"}}) == FOUR
    assert ccnews_months({"months": FOUR, "ccnews_ingest": {"raw_dir": ""}}) == []
    assert report_scopes({"months": FOUR}) == [*FOUR, "all"]


def test_load_params_fills_the_split_lists_from_the_counts(tmp_path: Path) -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["months"] = ["2025-07", *FOUR]
    file = tmp_path / "params.yaml"
    file.write_text(yaml.safe_dump(params))
    split = load_params(file)["foresight"]["split"]
    assert (split["train_months"], split["validation_months"], split["test_months"]) == (
        FOUR[:3],
        ["2025-06"],
        ["2025-07"],
    )
    assert "test_month_count" not in split
    assert derived_lists(load_params(file)) == {
        "ccnews_months": [*FOUR, "2025-07"],
    }


@pytest.mark.parametrize(
    "key, value",
    [("ccnews_months", ["2025-04"]), ("report_scopes", ["2025-04", "all"])],
)
def test_a_hand_kept_month_list_is_refused(tmp_path: Path, key: str, value: list[str]) -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params[key] = value
    file = tmp_path / "params.yaml"
    file.write_text(yaml.safe_dump(params))
    with pytest.raises(ParamsError, match=key):
        load_params(file)


def test_split_lists_in_params_yaml_are_refused(tmp_path: Path) -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["foresight"]["split"]["test_months"] = ["2025-06"]
    file = tmp_path / "params.yaml"
    file.write_text(yaml.safe_dump(params))
    with pytest.raises(ParamsError, match="test_months"):
        load_params(file)


def test_make_repro_renders_the_lists_of_a_hand_edited_months(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.core.repro import _render_month_lists

    text = (ROOT / "params.yaml").read_text()
    (tmp_path / "params.yaml").write_text(text.replace('"2025-06"]', '"2025-06", "2025-07"]', 1))
    shutil.copy2(ROOT / "dvc.yaml", tmp_path / "dvc.yaml")
    monkeypatch.chdir(tmp_path)
    _render_month_lists()
    lists = yaml.safe_load((tmp_path / "dvc.yaml").read_text())["vars"][0]
    assert lists["ccnews_months"] == ["2025-04", "2025-05", "2025-06", "2025-07"]
    assert "re-rendered" in capsys.readouterr().out
    _render_month_lists()  # up to date: nothing written, nothing said
    assert capsys.readouterr().out == ""
