"""The topics of an event article, kept apart from the LLM tasks so reports can name them without importing
every task (importing ``almanac.events.llm_tasks`` registers all eight)."""

# The Current Events Portal's own category headings, so that Wikipedia and WCEP complex events share one
# category distribution.
EVENT_TOPICS = (
    "Armed conflicts and attacks",
    "Arts and culture",
    "Business and economy",
    "Disasters and accidents",
    "Health and environment",
    "International relations",
    "Law and crime",
    "Politics and elections",
    "Science and technology",
    "Sports",
)
