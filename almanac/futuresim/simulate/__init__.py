"""FutureSim's replay environment (``almanac simulate``): the published question set replayed day by day.

Each day new articles become readable and searchable, questions open and resolve, and an agent holds
forecasts (at most five free-form outcomes with probabilities) that are scored with an answer-matching
judge, accuracy and the paper's Brier skill score (appendix G). What the agent can read is capped at the
simulated day by the environment itself (:mod:`.world`), never by the agent's good manners.
"""
