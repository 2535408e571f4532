"""Answer matching for the replay: does a forecast's outcome name the question's answer?

Outcomes equal to the answer once folded (case, accents, punctuation, a leading article) match without a
call; the rest go to the judge role (``futuresim_answer_match``, cached like every LLM call, so a resumed
or repeated simulation asks nothing twice). A verdict the judge could not give counts as no match and is
counted in ``failures``: a forecast is never credited without a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.futuresim.llm_tasks.answer_match import ANSWER_MATCH, Match, answer_match_item, normalised
from almanac.futuresim.simulate.environment import Question
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task


@dataclass
class RoleJudge:
    llm: LLMConfig
    role: str
    cache: LLMCache
    ledger: StageLedger
    failures: int = 0

    def __call__(self, pairs: Sequence[tuple[Question, str]]) -> list[bool]:
        verdicts = [
            bool(normalised(answer)) and normalised(answer) == normalised(q.answer) for q, answer in pairs
        ]
        unsure = [i for i, same in enumerate(verdicts) if not same]
        items = [
            answer_match_item(
                f"{pairs[i][0].question_id}:{content_id(pairs[i][1])}",
                pairs[i][0].fields["question_title"],
                pairs[i][1],
                pairs[i][0].answer,
            )
            for i in unsure
        ]
        if items:
            results = run_task(
                self.llm.role(self.role), ANSWER_MATCH, items, self.cache, self.ledger, self.llm.prompts_dir
            )
            for i, result in zip(unsure, results, strict=True):
                if isinstance(result.value, Match):
                    verdicts[i] = result.value.correct
                else:
                    self.failures += 1
        return verdicts
