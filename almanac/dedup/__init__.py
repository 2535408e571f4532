"""Near-duplicate detection: MinHash signatures of word n-gram shingles, LSH candidates, clusters."""
