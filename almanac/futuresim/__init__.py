"""FutureSim-style outputs: a date-gated article corpus, its chunks and BM25 index, retrieval contexts, and
the question filters (date repair loop, answerability) that search it."""
