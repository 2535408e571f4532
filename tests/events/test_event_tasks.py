"""The six tasks end to end through the loopback annotator: negatives filter, options, VQA, the ledger."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.events.cuts import date_span
from almanac.events.llm_tasks.replies import EventArguments, NegativeEvent
from almanac.events.options import filter_negatives, shuffled_options, true_event_keys, vqa_candidate
from almanac.events.samples import SAMPLE_SCHEMAS, TASKS
from almanac.events.tasks import build_tasks
from almanac.llm.cache import LLMCache
from tests.events.task_timelines import CONFIG, KESTREL, VELORIA, annotator, table, timeline
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import LLMTestServer

Serve = Callable[..., LLMTestServer]
ALL_CUTS = dataclasses.replace(CONFIG, cuts_per_event=10)


def build(server: LLMTestServer, cache: LLMCache, rows: list[dict[str, Any]], config: Any = ALL_CUTS) -> Any:
    return build_tasks(table(rows), config, remote_role(server, name="annotator"), cache, str(PROMPTS_DIR))


def reasons(ledger: StageLedger) -> Counter[str]:
    return Counter(reject.reason for reject in ledger.rejects)


def test_negative_equal_to_a_true_event_is_discarded_after_folding() -> None:
    keys, texts = true_event_keys(KESTREL["events"])
    same_arguments = NegativeEvent(
        "The port was shut by its authority.",
        EventArguments("CLOSED!", "kestrel port authority", "The Harbour.", "KESTREL", "2025-02-20"),
    )
    same_text = NegativeEvent("the mayor met the FISHERMEN", EventArguments("", "", "", "", ""))
    no_arguments = NegativeEvent("A storm hit Kestrel.", EventArguments("", "", "", "", ""))
    other = NegativeEvent(
        "The harbour caught fire.", EventArguments("caught fire", "the harbour", "", "Kestrel", "")
    )
    kept, discarded = filter_negatives([same_arguments, same_text, no_arguments, other], keys, texts)
    assert kept == [no_arguments, other] and discarded == 2


def test_options_are_a_seeded_permutation_with_the_gold_where_recorded() -> None:
    positions: Counter[int] = Counter()
    for n in range(40):
        first = shuffled_options("gold", ["n1", "n2", "n3"], 13, f"sample-{n}")
        assert first == shuffled_options("gold", ["n1", "n2", "n3"], 13, f"sample-{n}")
        assert sorted(first["options"]) == ["gold", "n1", "n2", "n3"]
        assert first["options"][first["answer_index"]] == "gold"
        assert first["answer_label"] == "ABCD"[first["answer_index"]]
        positions[first["answer_index"]] += 1
    assert set(positions) == {0, 1, 2, 3}  # the gold is not parked in one place


def test_vqa_label_is_given_and_its_no_candidate_seeded() -> None:
    negatives = ["n1", "n2", "n3"]
    assert vqa_candidate("gold", negatives, 13, "m1", yes=True) == ("Yes", "gold")
    draws = {f"m{n}": vqa_candidate("gold", negatives, 13, f"m{n}", yes=False) for n in range(50)}
    assert all(label == "No" and candidate in negatives for label, candidate in draws.values())
    assert {candidate for _, candidate in draws.values()} == set(negatives)
    assert all(vqa_candidate("gold", negatives, 13, key, yes=False) == drawn for key, drawn in draws.items())


def test_tasks_end_to_end(serve: Serve, cache: LLMCache) -> None:
    server = serve(annotator)
    tables, ledger = build(server, cache, [VELORIA, KESTREL])
    # Veloria stays in train (its earliest window): cuts 03-10 and 04-12; Kestrel: 3 train cuts.
    cuts = 5
    assert ledger.items_in == cuts * len(TASKS)  # one VQA per MCNC: no extra candidates
    assert ledger.items_in == ledger.items_out + len(ledger.rejects)
    for task in TASKS:
        assert tables[task].schema == SAMPLE_SCHEMAS[task]
        assert set(tables[task].column("split").to_pylist()) <= {"train"}
    counts = {task: tables[task].num_rows for task in TASKS}
    assert counts["stf"] == counts["ltf"] == counts["aqa"] == counts["mcac"] == cuts

    # MCNC makes no LLM call: its negatives are the other story's real events (both stories are in train).
    texts = {row["ce_id"]: {str(e["text"]) for e in row["events"]} for row in (VELORIA, KESTREL)}
    mcnc = tables["mcnc"].to_pylist()
    assert len(mcnc) + reasons(ledger)["too_few_negatives"] == cuts
    assert reasons(ledger)["no_mcnc_sample"] == reasons(ledger)["too_few_negatives"]
    for row in mcnc:
        assert row["options"][row["answer_index"]] == row["target"]["text"]
        assert row["answer_label"] == "ABCD"[row["answer_index"]]
        negatives = [o for i, o in enumerate(row["options"]) if i != row["answer_index"]]
        assert len(set(negatives)) == 3 and not set(negatives) & texts[row["ce_id"]]
        assert row["model"] == "" and row["prompt_version"] == ""
    assert server.count("Write three false events") == 0

    # VQA: exactly one sample per MCNC sample, Yes exactly when it shows the gold event.
    vqa = tables["vqa"].to_pylist()
    assert sorted(row["mcnc_sample_id"] for row in vqa) == sorted(row["sample_id"] for row in mcnc)
    by_id = {row["sample_id"]: row for row in mcnc}
    for row in vqa:
        source = by_id[row["mcnc_sample_id"]]
        gold = source["options"][source["answer_index"]]
        assert (row["candidate"] == gold) == (row["label"] == "Yes")
        assert row["candidate"] in source["options"] and row["background"] == source["background"]
    yes = sum(1 for row in vqa if row["label"] == "Yes")
    assert ledger.extra["vqa_labels"] == {"Yes": yes, "No": len(vqa) - yes}
    assert abs(2 * yes - len(vqa)) <= 1  # Yes and No alternate over the MCNC samples

    # AQA and MCAC come from one call per cut: same target, argument, question and gold answer.
    aqa = {(r["ce_id"], r["cut_date"]): r for r in tables["aqa"].to_pylist()}
    for row in tables["mcac"].to_pylist():
        twin = aqa[(row["ce_id"], row["cut_date"])]
        assert (row["target"], row["argument"], row["question"], row["answer"]) == (
            twin["target"],
            twin["argument"],
            twin["question"],
            twin["answer"],
        )
        assert row["options"][row["answer_index"]] == row["answer"]
        assert twin["answer"] == expected_value(twin["target"], twin["argument"])
    assert server.count("Write one question") == cuts

    # Every target of every task starts on or after its cut and ends by the train end (30 April).
    for task in ("ltf", "stf", "aqa", "mcnc", "mcac"):
        for row in tables[task].to_pylist():
            targets = row["targets"] if "targets" in row else [row["target"]]
            for target in targets:
                span = date_span(target)
                assert span is not None and row["cut_date"] <= span[0] and span[1] <= date(2025, 4, 30)
            for shown in row["background"]:
                span = date_span(shown)
                assert span is not None and span[1] < row["cut_date"]

    # A rerun reads every answer from the cache and writes the same tables.
    again, _ = build(server, cache, [KESTREL, VELORIA])
    assert all(again[task].equals(tables[task]) for task in TASKS)
    assert server.count("Write one question") == cuts


def expected_value(target: dict[str, Any], argument: str) -> str:
    value = str(target[argument])
    return value if value or argument != "time" else str(target["date"])


def test_llm_failure_and_missing_arguments_are_rejects_for_both_argument_tasks(
    serve: Serve, cache: LLMCache
) -> None:
    marrow = timeline(
        "ce-marrow",
        [
            ("Marrow town flooded.", "2025-03-01", "flooded", "Marrow"),
            ("Help came.", "2025-03-04", "came", "help"),
        ],
    )
    bare = timeline(
        "ce-bare", [("Something happened.", "2025-03-01"), ("Something else happened.", "2025-03-05")]
    )
    config = dataclasses.replace(CONFIG, arguments=("subject",))
    server = serve(annotator)
    tables, ledger = build(server, cache, [marrow, bare], config)
    rejects = {(r.reason, r.id) for r in ledger.rejects}
    by_reason = reasons(ledger)
    assert by_reason["llm_malformed_output"] == 2  # AQA and MCAC of the Marrow cut, under distinct ids
    assert by_reason["no_eligible_target"] == 2  # the bare timeline has no subject to ask about
    assert len({id_ for reason, id_ in rejects if reason == "llm_malformed_output"}) == 2
    assert tables["aqa"].num_rows == tables["mcac"].num_rows == 0
    assert tables["stf"].num_rows == 2 and ledger.items_in == ledger.items_out + len(ledger.rejects)


def test_cuts_outside_the_windows_reject_all_six_candidates(serve: Serve, cache: LLMCache) -> None:
    late = timeline(
        "ce-late", [("Start.", "2025-08-01", "started", "x"), ("Later.", "2025-08-09", "ended", "y")]
    )
    tables, ledger = build(serve(annotator), cache, [late])
    assert reasons(ledger) == {"outside_split_windows": 6} and ledger.items_out == 0
    assert ledger.extra["cuts"]["outside_split_windows"] == 1
    assert all(isinstance(t, pa.Table) and t.num_rows == 0 for t in tables.values())
