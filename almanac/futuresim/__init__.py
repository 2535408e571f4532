"""FutureSim-style outputs: a date-gated retrieval corpus and the question filters that use it."""
