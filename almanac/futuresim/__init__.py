"""FutureSim-style outputs: a date-gated article corpus, its chunks and BM25 index, retrieval contexts."""
