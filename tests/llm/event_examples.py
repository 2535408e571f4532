"""Timeline events and arguments written by hand, shared by the complex-event parser and builder tests."""

from __future__ import annotations

from almanac.events.llm_tasks.replies import (
    EventDate,
    TimelineEvent,
)

FLOOD = TimelineEvent("The Sava river burst its banks in Veloria.", EventDate("2025-03-04", "day"))
EVACUATION = TimelineEvent("Veloria ordered 4,000 residents to leave.", EventDate("2025-03", "month"))
INQUIRY = TimelineEvent("Parliament opened an inquiry into the dams.", EventDate("unknown", "unknown"))
