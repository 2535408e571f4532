"""CommonCrawl News: WARC and news-please JSONL readers, extraction, filters, downloader."""
