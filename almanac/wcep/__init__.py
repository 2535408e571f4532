"""Wikipedia Current Events Portal (WCEP) ingest.

``portal`` turns one ``Portal:Current events/<Year> <Month> <Day>`` page's wikitext into event rows
(category, story path, plain summary, canonical source URLs); ``days`` feeds it pages from a directory
of raw wikitext or from any other page source and collects rejects; ``mds`` reads the WCEP-MDS JSONL
release into the same event shape.
"""
