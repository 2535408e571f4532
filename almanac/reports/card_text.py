"""What a dataset card says about each style that is not a number: purpose, sources, fields, uses.

The numbers (counts, funnel, thresholds, models, prompt versions) come from params and metrics when the
card is rendered; only the prose lives here, so a reviewer can read and correct it in one place.
"""

from __future__ import annotations

from almanac.reports.card_model import NEWS_STAGES as _NEWS_STAGES
from almanac.reports.card_model import CardText as CardText
from almanac.reports.card_text_replay import DATA_AND_REPLAY_CARD_TEXTS

# The FutureX-style tiers (issue 19) are built from OpenForesight questions, GDELT day-pairs and series.
FUTUREX_NOTE = (
    " The released questions also feed a FutureX-style set in four tiers (`data/futurex/tiers/`: single "
    "choice among fewer than 4 options, multi-choice relations between two countries, open-ended names, "
    "open-ended numbers with units), after harmful and subjective events are dropped by judge roles, yes/no "
    "events down-sampled and each outlet capped per day; `almanac check futurex` checks it and "
    "`almanac score futurex` scores it with the paper's metrics (exact match, F1, an answer judge, "
    "clipped squared error; overall weights 10/20/30/40)."
)

CARD_TEXTS: dict[str, CardText] = {
    "openforesight": CardText(
        summary="Free-form forecasting questions written from single news articles, each resolved by a "
        "short answer that became known on the article's publication day.",
        motivation="Language models are trained on the news, so forecasting benchmarks must be built from "
        "events after a model's training cutoff and must not leak their answers. These questions are "
        "generated per month from the CommonCrawl News record and split by resolution date, so a model "
        "can be evaluated on months it has not seen.",
        collection="CC-News WARC files of the configured months are parsed with warcio and trafilatura, "
        "filtered by source, language and length, and near-duplicates are removed with MinHash LSH. The "
        "generator role writes candidate questions per article; the validator role checks each one and "
        "keeps the best per article; the editor role rewrites questions whose text gives the answer away, "
        "after which an exact and fuzzy answer-string re-scan rejects what still leaks. Answer types are "
        "then filtered with spaCy and the questions are split by resolution month. "
        "For retrieval, the corpus is also exported FutureSim-style: day folders of JSONL keyed by each "
        "article's last possible publish day, 512-token chunks and a BM25 index (tantivy) whose every "
        "query is capped by date; each released question gets its top-k chunks from articles available "
        "up to one month before its resolution date (`data/foresight/retrieval/`, each row naming the "
        "retrieval backend that made it). A FutureSim-style question set (`data/futuresim/questions/`) "
        "re-dates each released question to the earliest day a capped search made its answer inferable "
        "(judged-correct answers only, up to `futuresim.repair.passes` passes) and drops questions answered "
        "confidently months early (stale) or still missed after resolution (likely label noise).",
        uses="Training and evaluating forecasting systems on free-form questions about events after a "
        "model's knowledge cutoff; studying calibration on short-answer questions." + FUTUREX_NOTE,
        out_of_scope="Questions are machine-written from one article each; they are not verified by people "
        "and can be ambiguous. Do not treat answers as facts beyond what the cited article reports.",
        license_note="Question text is machine-generated. The source articles belong to their publishers; "
        "publish with `--urls-only` where their licences forbid redistribution.",
        task_categories=("question-answering", "text-generation"),
        source_datasets=("CommonCrawl News (CC-News)",),
        roles=("generator", "validator", "editor"),
        prompts=("qgen", "validate", "select_best", "leakage", "date_repair", "repair"),
        params_sections=("months", "ccnews_ingest.filters", "dedup", "foresight", "futuresim"),
        stages=(
            *_NEWS_STAGES,
            "foresight_month",  # the six question steps of a month (qgen .. dates)
            "foresight_question_dedup",
            "foresight_split",
        ),
        fields=(
            ("question_id", "stable content-hash id of the question"),
            ("question_title", "the question, answerable by a short string"),
            ("background", "context a forecaster may use, as of the start date"),
            ("resolution_criteria", "how and by when the question resolves"),
            ("answer", "the short answer reported by the source article"),
            ("answer_type / answer_class", "the answer's type as written, and its coarse class"),
            ("question_start_date / resolution_date", "forecast start and resolution day (YYYY-MM-DD)"),
            ("url / article_title / article_publish_date / news_source", "the source article"),
            ("article_id", "id of the source article in the `articles` config"),
            ("prompt / prompt_without_retrieval", "ready forecaster prompts built from the prompt fields"),
            ("cross_question_leak", "the answer appears in another question of the split"),
            ("generator_model / validator_model", "the models that wrote and checked the question"),
        ),
        split_rules=(
            "Questions are split by resolution month (`foresight.split`); train months precede validation "
            "months, which precede test months.",
            "question start date < resolution date, and start date <= article publish date <= resolution "
            "date: nothing in a row was written after its resolution date.",
            "Month-only deadlines resolve on the month's last day, year-only ones on 31 December.",
            "Article publish dates are days from the page's metadata, URL or feed; a page with no such day "
            "is dated by its crawl, as an upper bound; a year is never read as 1 January.",
            "The answer does not appear in the prompt fields (exactly, case- and diacritics-folded, as a "
            "whole-token fuzzy variant, or for a person by surname).",
            "A question's retrieval context holds only chunks of articles available on or before its "
            "cut-off, `futuresim.retrieval.cutoff_months` before the first day of its resolution date.",
        ),
    ),
    "openforecast": CardText(
        summary="Complex-event forecasting tasks built from Wikipedia event articles and Wikipedia Current "
        "Events Portal (WCEP) stories: event timelines cut at a date, with six task formats.",
        motivation="Real events unfold as chains of smaller events. Timelines of complex events, cut at a "
        "date, let one ask what happens next (STF, LTF), about the arguments of the next event (AQA, MCAC), "
        "which candidate event comes next (MCNC) and whether a given event follows (VQA), with splits by "
        "date so models are tested on events after their training data.",
        collection="Wikipedia pages-articles dumps are parsed with mwxml and mwparserfromhell; event "
        "articles are kept by section titles and a category check (classifier role). WCEP day pages "
        "from the same dumps give dated events grouped into stories, with their linked news articles looked "
        "up in the CC-News corpus. The annotator role extracts a timeline from the first document, "
        "completes it with later ones and re-orders it; atomic events get arguments, and the six tasks are "
        "cut from the timelines and split by cut date.",
        uses="Training and evaluating event forecasting and temporal reasoning over news timelines.",
        out_of_scope="Timelines and arguments are machine-extracted and can contain errors; MCNC/VQA "
        "negatives are real events of other stories with their names replaced by this story's, checked "
        "(fuzzily) against this story's timeline, and may still read as out of place or be true.",
        license_note="Wikipedia text is CC BY-SA 4.0; WCEP-linked news articles belong to their publishers "
        "(publish with `--urls-only` where their licences forbid redistribution).",
        task_categories=("question-answering", "multiple-choice", "text-generation"),
        source_datasets=("Wikipedia (English pages-articles dump)", "Wikipedia Current Events Portal (WCEP)"),
        roles=("classifier", "annotator"),
        prompts=(
            "article_category",
            "occurrence_date",
            "timeline_extract",
            "timeline_complement",
            "timeline_reorder",
            "event_arguments",
            "argument_question",
            "repair",
        ),
        params_sections=(
            "wiki_ingest",
            "wcep_news",
            "wiki_filter",
            "complex_events",
            "event_timeline",
            "event_tasks",
        ),
        stages=(
            *_NEWS_STAGES,
            "wiki_ingest",
            "wcep_ingest",
            "wcep_news",
            "wiki_filter",
            "complex_events",
            "event_timeline",
            "event_tasks",
            "event_split",
        ),
        fields=(
            ("sample_id", "stable content-hash id of the sample"),
            ("task / split", "one of stf, ltf, aqa, mcnc, mcac, vqa; train, validation or test"),
            ("ce_id / ce_title / topic / origin", "the complex event and where it came from"),
            (
                "cut_date",
                "forecast start: the first target event's day; background events are dated before it",
            ),
            ("background", "the timeline up to the cut (atomic events with dates and arguments)"),
            ("targets / question / options / answer / candidate / label", "what is asked, per task"),
        ),
        split_rules=(
            'Dates are intervals with their precision (day, month or year): "2025-05" may be any day '
            "of May. Undated events are never shown.",
            "A sample is cut at a day T: its background holds only events whose whole interval ends "
            "before T; its targets start on or after T.",
            "Each complex event belongs to exactly one split, chosen by the windows its cut days fall in "
            "(`event_tasks.split_boundary`: the earliest window, or dropped when it straddles two).",
            "Targets are trimmed at their own split's window end: every target lies wholly inside its "
            "split's window, so no train target falls in validation or test.",
            'MCNC negatives and VQA "No" candidates are never true events of the same timeline, not even '
            "reworded (token-set ratio below `event_tasks.negatives.fuzzy_threshold`); they are real events "
            "of stories of the same or an earlier split, never from a later period.",
            "MCAC options are all dated on or after the cut, like the gold; the gold's position (and the "
            "VQA label) is balanced over each task; no background event uses hindsight wording "
            "(`event_tasks.hindsight_words`); no no-knowledge baseline beats chance by more than "
            "`event_tasks.shortcut_audit.margin` (table under Statistics).",
        ),
    ),
    "mirai": CardText(
        summary="Relational forecasting queries from GDELT: which CAMEO relations will a country take "
        "towards another on a given day, with the answer set recorded in the event exports.",
        motivation="Forecasting international events tests whether a model (or an agent with tools) can "
        "reason over the history of relations between countries. Queries are drawn per month from GDELT "
        "events after cleaning and mention thresholds, balanced over dates, CAMEO relation roots, "
        "continents and countries with the weights of MIRAI's released sampler (1, 1, 0.4, 0.2).",
        collection="GDELT 2.0 event and mention exports of the configured months are downloaded from the "
        "masterfilelist (checksums verified) and parsed with pyarrow. Events are cleaned (duplicates, "
        "reporting date, country codes, unknown roots, mention thresholds) into (date, subject, relation, "
        "object) quads. The article behind each event URL is taken from the CC-News corpus, WARC page "
        "archives or (optionally) a polite fetcher, and cleaned at paragraph and document level with the "
        "MIRAI authors' OBELICS limits (word counts, repetition, special characters, a flagged-words list) "
        "and their document language filter (English, probability >= 0.8). The `paper` recipe follows "
        "the authors' released construction: only events with surviving article text are in the data (and "
        "the answers); a day-pair is a test query only when it has an event with the test split's daily "
        "mentions and every such event has the test split's number of articles with text "
        "(`relation_split`); balanced queries are drawn per month with a fixed seed. What still differs "
        "from the authors' construction (cleaning measures, language model, text sources, the sampler's "
        "search) is listed in the statistics below with the rules and what each removed.",
        uses="Evaluating forecasting of international relations (first- and second-level CAMEO codes) "
        "with precision/recall/F1 and KL divergence over binary and quad classes (`almanac score`, MIRAI's "
        "quad mapping by default; `--baseline` scores the frequency baseline)." + FUTUREX_NOTE,
        out_of_scope="GDELT codes events automatically from news; relations can be mis-coded, and the "
        "answer set is what GDELT recorded, not a verified account.",
        license_note="GDELT data is open for research use with citation; linked news articles belong to "
        "their publishers (publish with `--urls-only` where their licences forbid redistribution).",
        task_categories=("question-answering", "text-generation"),
        source_datasets=("GDELT 2.0 Event Database",),
        roles=(),
        prompts=(),
        params_sections=(
            "months",
            "gdelt_download",
            "gdelt_clean",
            "gdelt_articles",
            "mirai",
            "relation_split",
            "scorer",
        ),
        stages=(
            *_NEWS_STAGES,
            "gdelt_download",
            "gdelt_ingest",
            "gdelt_clean",
            "gdelt_articles",
            "relation_split",
        ),
        fields=(
            ("query_id", "stable content-hash id of the query"),
            ("date / date_text / subject / object / query", "the query (date, subject, ?, object)"),
            ("subject_region / object_region", "UN M49 regions of the two countries"),
            (
                "answers / answers_by_root / answer_roots",
                "CAMEO relations recorded that day (the answer set)",
            ),
            (
                "recipe",
                "the MIRAI recipe that admitted the query: paper (the authors' construction) or relaxed",
            ),
            (
                "test_relations",
                "the answers whose own event met the test thresholds (every answer if relaxed)",
            ),
            (
                "num_daily_mentions / n_articles / n_text_articles / urls",
                "how widely the day's events were reported; n_text_articles have cleaned text",
            ),
            ("horizons", "history cut-offs (days before the query date) to forecast from"),
        ),
        split_rules=(
            "Each monthly file holds queries dated in that month only.",
            "Answers are exactly the relations recorded for the query's date and country pair (under "
            "`paper`, those with article text).",
            "Every history horizon ends before the query date.",
            "Under `paper`, every answer is an event of that day with at least one article whose cleaned "
            "text survived, and every answer with at least `relation_split.min_daily_mentions` daily "
            "mentions (so every test relation) has `relation_split.min_articles` such articles; under "
            "`relaxed` the day-pair meets both thresholds as a whole.",
        ),
    ),
    **DATA_AND_REPLAY_CARD_TEXTS,
}
