"""Card prose of the styles built from other styles' releases or from data series: series, FutureSim,
FutureX."""

from __future__ import annotations

from almanac.reports.card_model import NEWS_STAGES as _NEWS_STAGES
from almanac.reports.card_model import CardText

DATA_AND_REPLAY_CARD_TEXTS: dict[str, CardText] = {
    "series": CardText(
        summary="Forecasting questions that resolve themselves from published data series: will a series "
        "be higher on a date than its latest figure, and what will its first figure on or after that date "
        "be, at fixed horizons (ForecastBench-like).",
        motivation="Much of what forecasters are asked (inflation, prices, rates, counts) resolves from "
        "published data without any model in the loop. Questions built from templates at fixed horizons "
        "and resolved from the series give many leak-checkable questions and a FutureX-style numeric score "
        "whose sigma is the series' own recent variation.",
        collection="Series files (FRED/ALFRED and DBnomics API responses, CSV exports, OHLC price tables, "
        "or wide tables such as statsmodels' macro data) are listed in a manifest and read into one table "
        "in which every value is dated by the day it became known: an ALFRED vintage's real-time start, a "
        "market close, a release-date column, or, when the source gives none, the period's end plus "
        "`series.ingest.lag_days` (such rows are flagged: the value may be a later revision). At each "
        "forecast date (`series.questions.forecast_days` of every month) and horizon, a binary and a "
        "numeric question are written from templates and resolved from the first figure published on or "
        "after the resolution date.",
        uses="Evaluating numeric and binary forecasting of economic and market series with the Brier score "
        "and FutureX's clipped squared-error score, against the no-change and last-trend baselines in the "
        "statistics below.",
        out_of_scope="Series without release dates (the bundled 1959-2009 macro data) carry today's revised "
        "values: their prompts may hold information published after the forecast date, so they serve to "
        "test the pipeline, not to rank forecasters; use vintaged series (ALFRED) for that.",
        license_note="The bundled macro data is public domain (FRED, BLS, as shipped by statsmodels); "
        "other series carry their providers' terms.",
        task_categories=("time-series-forecasting", "question-answering"),
        source_datasets=("FRED / BLS US macroeconomic data (statsmodels macrodata)",),
        roles=(),
        prompts=(),
        params_sections=("series.ingest", "series.questions", "series.split", "series.context"),
        stages=("series_ingest", "series_questions"),
        fields=(
            ("question_id", "stable content-hash id of the question"),
            ("kind / question", "binary (higher than the latest figure?) or numeric (the figure), as asked"),
            ("series_id / provider / title / unit / frequency", "the series the question is about"),
            ("forecast_date / resolution_date / horizon_days", "when it is asked and when it resolves"),
            ("prompt_values", "the last figures known on the forecast date, each as it stood that day"),
            ("baseline_period / baseline_value", "the latest figure published by the forecast date"),
            ("answer / resolution_value / resolution_period / resolution_known_date", "the resolving figure"),
            ("sigma / sigma_source", "FutureX's sigma (numeric): recent_values or a flagged fallback"),
            ("values_may_be_revised", "the series has no release dates; its figures may be later revisions"),
            ("news_query / news_context", "FutureSim chunks published by the forecast date (may be empty)"),
        ),
        split_rules=(
            "A question is in the split of its resolution month (`series.split`).",
            "Every figure in a prompt was published on or before the forecast date and is the figure that "
            "stood on that day (a later revision of an old period is never shown).",
            "Every answer is the first figure published on or after the resolution date, reproducible from "
            "the observations table.",
            "Series without release dates are released only with `series.questions.allow_unvintaged`, "
            "every such row flagged `values_may_be_revised`.",
            "News context: at most `futuresim.retrieval.k` chunks of the FutureSim index, each of an article "
            "whose whole publication interval ends on or before the forecast date; the report counts the "
            "questions that have any (none on the sample: its series end in 2009, its news is of 2025).",
        ),
    ),
    "futuresim": CardText(
        summary="Free-form forecasting questions re-dated to the day their answer became inferable, with the "
        "date-gated news corpus, chunk table, search index and retrieval contexts a FutureSim-style "
        "replay reads.",
        motivation="FutureSim replays the news day by day: an agent reads only what was published up to the "
        "current day and forecasts open questions. That needs questions whose resolution date is the first "
        "day their answer could be known, and a corpus and search that no agent can read past a day.",
        collection="The released OpenForesight questions (see that card) are re-dated: an answering role "
        "with search capped at a date names the earliest day the answer is inferable, and only answers a "
        "judge role accepts move the date (`futuresim.repair`); questions answered confidently months early "
        "or still missed after resolution are dropped (`futuresim.answerability`). The deduplicated CC-News "
        "corpus is exported per day each article became available (its last possible publish day) and cut "
        "into chunks; a search index over the chunks is capped by date on every query.",
        uses="Evaluating forecasting agents in a day-by-day replay (`almanac simulate`) or with the shipped "
        "retrieval contexts; studying how early news makes an outcome inferable.",
        out_of_scope="Questions are machine-written from one article each and re-dated by machine judgement; "
        "an inferable day is where the capped search found the answer, not a verified first report.",
        license_note="Question text is machine-generated. The articles belong to their publishers; publish "
        "with `--urls-only` (no text, no index) where their licences forbid redistribution.",
        task_categories=("question-answering", "text-generation", "text-retrieval"),
        source_datasets=("CommonCrawl News (CC-News)",),
        roles=("generator", "validator", "editor"),
        prompts=("qgen", "validate", "date_repair", "futuresim_answer", "futuresim_answer_match"),
        params_sections=("ccnews_ingest.filters", "dedup", "foresight.split", "futuresim"),
        stages=(
            *_NEWS_STAGES,
            "foresight_split",
            "futuresim_corpus",
            "futuresim_index",
            "futuresim_retrieval",
            "futuresim_repair",
            "futuresim_answerability",
        ),
        fields=(
            ("question_id / question_title / background / resolution_criteria", "as in OpenForesight"),
            ("answer / answer_type / answer_class", "the short answer and its type"),
            ("resolution_date", "the repaired resolution day: the earliest day the answer was inferable"),
            ("resolution_date_original / repair_moves", "the OpenForesight date and how often it moved"),
            ("url / article_title / article_publish_date / news_source / article_id", "the source article"),
            ("repair_model / answerability_model", "the models behind the repair and the filter"),
        ),
        split_rules=(
            "Splits are OpenForesight's: the original resolution date falls in a month of the row's "
            "split, and the repaired date lies between the split's first day and that original date.",
            "question start date < repaired resolution date.",
            "Every chunk a repair search returned was published on or before that search's cap, and every "
            "repair search is capped on or before the OpenForesight resolution date.",
        ),
    ),
    "futurex": CardText(
        summary="Forecasting questions in FutureX's four tiers (single choice, multi choice, open names, "
        "open numbers) with the paper's scoring configuration.",
        motivation="FutureX scores forecasting agents on live questions of graded difficulty; these tiers "
        "rebuild its question forms from news and GDELT events after a cut-off, scored the paper's way.",
        collection="Candidate events come from released OpenForesight questions, MIRAI GDELT day-pairs, "
        "numeric answers the OpenForesight filters set aside and the series style's numeric test questions "
        "(their Level-4 sigma from the series' recent values, `sigma_source`); judge roles drop harmful and "
        "subjective events, yes/no questions are down-sampled, one event is kept per template and site; the "
        "tiers are drawn with a fixed seed (Level 1 distractors are other generated answers public by the "
        "cut-off).",
        uses="Evaluating forecasters with `almanac score futurex` (the configuration in `scoring.json`).",
        out_of_scope="Questions and distractors are machine-made; GDELT relations are machine-coded.",
        license_note="Question text is machine-generated; each row's `resolution_source` belongs to its "
        "publisher.",
        task_categories=("question-answering", "multiple-choice"),
        source_datasets=("CommonCrawl News (CC-News)", "GDELT 2.0 Event Database", "published data series"),
        roles=("generator", "validator"),
        prompts=("futurex_harmful", "futurex_subjective", "futurex_answer_judge"),
        params_sections=("futurex",),
        stages=(
            "foresight_split",
            "relation_split",
            "series_questions",
            "futurex_events",
            "futurex_filter",
            "futurex_tiers",
        ),
        fields=(
            (
                "question_id / level / tier",
                "stable id; tier 1-4 (basic, wide_search, deep_search, super_agent)",
            ),
            ("question / background / options / unit", "what the forecaster is shown"),
            ("information_cutoff", "the last day whose information a forecaster may use"),
            ("answers / aliases / value", "the outcome (Level 2: every correct option; Level 4: a number)"),
            ("resolution_date / resolution_source", "when and where the outcome was read"),
            ("sigma / sigma_source", "Level 4: the scale of equation 2 and the rule that set it"),
            ("origin / source_id / event_id", "the question or query the event was made from"),
        ),
        split_rules=(
            "information cut-off < resolution date; rows come from OpenForesight test questions or "
            "test-month numeric rejects, never a training article; each source is released once.",
            "No answer or alias appears in the question or background; no Level-3 or Level-4 answer is an "
            "option of another question; no Level-1 option shares its words with another released answer.",
            "At most `futurex.filter.max_per_template` per (source, day, question template) and "
            "`max_per_source_day` per (source, day); no no-knowledge baseline beats chance + 10% on Level 1.",
        ),
    ),
}
