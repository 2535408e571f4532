"""Build the bundled fictional sample corpus in CC-News formats: python scripts/build_sample.py [--out DIR]

Reads ``scripts/sample_corpus/articles.json`` and writes CC-News style WARC files (WARC/1.0, one gzip
member per record) and news-please JSONL files to ``data/raw/sample/ccnews/<crawl_month>/``, including
the malformed items listed in ``scripts/sample_corpus/MALFORMED.md``.  The output is byte-for-byte
reproducible: record ids are uuid5 (sha1) of the content, dates come from the article data, gzip members
carry no mtime and everything is iterated in sorted order.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import email.utils
import gzip
import hashlib
import importlib.util
import io
import json
import shutil
import sys
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, TypeAlias

from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

CORPUS_DIR = Path(__file__).resolve().parent / "sample_corpus"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "raw" / "sample" / "ccnews"
UTC = dt.UTC
USER_AGENT = "CCBot/2.0 (https://commoncrawl.org/faq/)"
# Status line of the broken response: not "HTTP/1.0" / "HTTP/1.1", and a stray NUL byte.
BAD_STATUS_LINE = b"HTPP/1.1 2\x0000 OK\r\n"
WARCINFO = (
    "software: StormCrawler 2.10 https://stormcrawler.net/\r\n"
    "format: WARC File Format 1.0\r\n"
    "conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.0/\r\n"
    "description: Almanac fictional sample corpus in CC-News format ({month})\r\n"
    "isPartOf: CC-NEWS\r\n"
    "operator: Almanac sample builder (scripts/build_sample.py)\r\n"
)

Article = dict[str, Any]
Doc = dict[str, Any]
Headers = dict[str, str]
Http: TypeAlias = "StatusAndHeaders | None"


def _load_html_module() -> Any:
    """Load sample_corpus/page_templates.py by path (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("sample_corpus_pages", CORPUS_DIR / "page_templates.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HTML = _load_html_module()


def sha1_hex(data: str | bytes) -> str:
    return hashlib.sha1(data.encode() if isinstance(data, str) else data).hexdigest()


def record_id(*parts: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, '|'.join(parts))}>"


def warc_date(when: dt.datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def crawl_time(art: Article, month: str) -> dt.datetime:
    """Deterministic fetch time inside ``month``, shortly after publication."""
    start = dt.datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    end = (start + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(minutes=1)
    published = dt.datetime.fromisoformat(art["publish_date"]).astimezone(UTC)
    base = published if published >= start else start + dt.timedelta(days=1)
    minutes = 35 + int(sha1_hex(art["key"] + month)[:6], 16) % 300
    seconds = int(sha1_hex(art["url"])[:4], 16) % 60
    return min(base + dt.timedelta(minutes=minutes, seconds=seconds), end)


class WarcFile:
    """One CC-News style WARC file, written into memory."""

    def __init__(self, name: str, month: str, doc: Doc) -> None:
        self.name, self.doc = name, doc
        self.buf = io.BytesIO()
        self.writer = WARCWriter(self.buf, gzip=True, warc_version="1.0")
        self.member_starts: list[int] = []
        first = dt.datetime.strptime(name.split("-")[2], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        info = WARCINFO.format(month=month).encode()
        self.info_id = record_id(name, "warcinfo", sha1_hex(info))
        headers = {"WARC-Date": warc_date(first), "WARC-Filename": name, "WARC-Record-ID": self.info_id}
        self._record("", "warcinfo", info, None, headers, "application/warc-fields")

    def _write(self, record: ArcWarcRecord) -> None:
        self.member_starts.append(self.buf.tell())
        self.writer.write_record(record)

    def _record(self, url: str, kind: str, body: bytes, http: Http, hdrs: Headers, ctype: str = "") -> None:
        stream = io.BytesIO(body)
        self._write(
            self.writer.create_warc_record(url, kind, stream, len(body), ctype, hdrs, http_headers=http)
        )

    def _headers(self, rid: str, when: dt.datetime, url: str, concurrent: str = "") -> Headers:
        ip = f"192.0.2.{int(sha1_hex(urllib.parse.urlsplit(url).netloc)[:2], 16) % 250 + 1}"
        headers = {"WARC-Record-ID": rid, "WARC-Date": warc_date(when), "WARC-Warcinfo-ID": self.info_id}
        headers["WARC-IP-Address"] = ip
        return headers | ({"WARC-Concurrent-To": concurrent} if concurrent else {})

    def _server(self, art: Article) -> str:
        return str(self.doc["outlets"][art["source_domain"]]["server"])

    def add_article(self, art: Article, when: dt.datetime) -> None:
        url, body = art["url"], HTML.page_bytes(art, self.doc)
        parts = urllib.parse.urlsplit(url)
        req_id = record_id(self.name, "request", url, warc_date(when))
        lang = "en-US,en;q=0.5" if art["language"] == "en" else f"{art['language']},en;q=0.5"
        accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        req_headers = [("User-Agent", USER_AGENT), ("Accept", accept), ("Accept-Language", lang)]
        req_headers += [("Host", parts.netloc), ("Connection", "Keep-Alive")]
        request = StatusAndHeaders(f"GET {parts.path} HTTP/1.1", req_headers, is_http_request=True)
        self._record(url, "request", b"", request, self._headers(req_id, when, url))
        resp_id = record_id(self.name, "response", url, warc_date(when), sha1_hex(body))
        headers = self._headers(resp_id, when, url, concurrent=req_id)
        http = [
            ("Date", email.utils.format_datetime(when, usegmt=True)),
            ("Server", self._server(art)),
            ("Content-Type", "text/html; charset=UTF-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "max-age=300"),
            ("Vary", "Accept-Encoding"),
        ]
        if art.get("malformed") != "bad_http_status_line":
            response = StatusAndHeaders("200 OK", http, protocol="HTTP/1.1")
            self._record(url, "response", body, response, headers)
            return
        # Built by hand: warcio itself would refuse to parse the broken HTTP header block.
        block = BAD_STATUS_LINE + "".join(f"{k}: {v}\r\n" for k, v in http).encode() + b"\r\n" + body
        warc_headers = StatusAndHeaders("", list(headers.items()), protocol="WARC/1.0")
        warc_headers.add_header("WARC-Type", "response")
        warc_headers.add_header("WARC-Target-URI", url)
        content_type = "application/http; msgtype=response"
        stream = io.BytesIO(block)
        self._write(ArcWarcRecord("warc", "response", warc_headers, stream, None, content_type, len(block)))

    def add_revisit(self, art: Article, when: dt.datetime, original: dt.datetime) -> None:
        url, body = art["url"], HTML.page_bytes(art, self.doc)
        digest = "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()
        http = [("Date", email.utils.format_datetime(when, usegmt=True)), ("Server", self._server(art))]
        headers = self._headers(record_id(self.name, "revisit", url, warc_date(when)), when, url)
        status = StatusAndHeaders("304 Not Modified", http, "HTTP/1.1")
        self._write(self.writer.create_revisit_record(url, digest, url, warc_date(original), status, headers))

    def add_metadata(self, art: Article, when: dt.datetime) -> None:
        url, body = art["url"], HTML.page_bytes(art, self.doc)
        resp_id = record_id(self.name, "response", url, warc_date(when), sha1_hex(body))
        fields = b'fetchTimeMs: 412\r\ncharset-detected: UTF-8\r\nlanguages-cld2: {"en": 99}\r\n'
        headers = self._headers(record_id(self.name, "metadata", resp_id), when, url, concurrent=resp_id)
        self._record(url, "metadata", fields, None, headers, "application/warc-fields")

    def getvalue(self, truncate_last: bool = False) -> bytes:
        data = self.buf.getvalue()
        if truncate_last:  # cut the last gzip member (record) in half
            start = self.member_starts[-1]
            data = data[: start + (len(data) - start) // 2]
        return data


def build_warcs(doc: Doc, out: Path) -> None:
    by_key = {a["key"]: a for a in doc["articles"]}
    warc_articles = [a for a in doc["articles"] if a["format"] == "warc"]
    first_file: dict[str, str] = {}  # re-crawls go to the first file of their month
    for art in warc_articles:
        first_file[art["crawl_month"]] = min(first_file.get(art["crawl_month"], "~"), art["warc_file"])
    # (month, file name) -> [((last?, WARC-Date, order), key, action, article)]
    plan: dict[tuple[str, str], list[tuple[tuple[bool, str, int], str, str, Article]]] = {}
    for art in warc_articles:
        crawls = [(art["crawl_month"], art["warc_file"])]
        crawls += [(month, first_file[month]) for month in art.get("recrawl_months", [])]
        for month, name in crawls:
            last = art.get("malformed") == "truncated_gzip_member"
            sort_key = (last, warc_date(crawl_time(art, month)), 0)
            plan.setdefault((month, name), []).append((sort_key, art["key"], "article", art))
    for extra in doc["extra_records"]:
        art = by_key[extra["refers_to"]]
        when = crawl_time(art, extra["crawl_month"])
        if extra["type"] == "revisit":
            sort_key = (False, warc_date(when + dt.timedelta(days=12)), 0)
        else:
            sort_key = (False, warc_date(when), 1)
        plan[(extra["crawl_month"], extra["warc_file"])].append((sort_key, art["key"], extra["type"], art))
    for (month, name), items in sorted(plan.items()):
        warc = WarcFile(name, month, doc)
        for (_, date, _), _, action, art in sorted(items, key=lambda item: item[:2]):
            stamp = dt.datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            if action == "article":
                warc.add_article(art, stamp)
            elif action == "revisit":
                warc.add_revisit(art, stamp, crawl_time(art, art["crawl_month"]))
            else:
                warc.add_metadata(art, stamp)
        truncated = any(a.get("malformed") == "truncated_gzip_member" for *_, a in items)
        (out / month).mkdir(parents=True, exist_ok=True)
        (out / month / name).write_bytes(warc.getvalue(truncate_last=truncated))


def newsplease_record(art: Article) -> dict[str, Any]:
    """A news-please (commoncrawl extractor) JSON record."""
    path = urllib.parse.urlsplit(art["url"]).path
    record: dict[str, Any] = {
        "authors": [art["author"]],
        "date_download": crawl_time(art, art["crawl_month"]).strftime("%Y-%m-%d %H:%M:%S"),
        "date_modify": None,
        "date_publish": dt.datetime.fromisoformat(art["publish_date"]).strftime("%Y-%m-%d %H:%M:%S"),
        "description": HTML.description(art),
        "filename": urllib.parse.quote(art["url"], safe="") + ".json",
        "image_url": f"https://{art['source_domain']}/media{path}.jpg",
        "language": art["language"],
        "localpath": None,
        "maintext": art["text"],
        "source_domain": art["source_domain"].removeprefix("www."),
        "title": art["title"],
        "title_page": None,
        "title_rss": None,
        "url": art["url"],
    }
    if art.get("malformed") == "missing_maintext":
        del record["maintext"]
    return record


def build_jsonl(doc: Doc, out: Path) -> None:
    jsonl = sorted((a for a in doc["articles"] if a["format"] == "jsonl"), key=lambda a: a["publish_date"])
    for month in sorted({a["crawl_month"] for a in jsonl}):
        lines: list[bytes] = []
        for art in (a for a in jsonl if a["crawl_month"] == month):
            line = json.dumps(newsplease_record(art), ensure_ascii=False, sort_keys=True)
            if art.get("malformed") == "broken_json":
                line = line[: len(line) * 3 // 5]
            encoding = "latin-1" if art.get("malformed") == "invalid_utf8" else "utf-8"
            lines.append(line.encode(encoding) + b"\n")
        (out / month).mkdir(parents=True, exist_ok=True)
        (out / month / f"newsplease-{month}.jsonl").write_bytes(b"".join(lines))


def build_special(doc: Doc, out: Path) -> None:
    for spec in doc["special_files"]:
        path = out / spec["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        if spec["kind"] == "empty":
            path.write_bytes(b"")
        elif spec["kind"] == "not_warc":
            text = "".join(line + "\n" for line in spec["content"])
            path.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
        else:
            raise ValueError(f"unknown special file kind: {spec['kind']}")


def build(out: Path = DEFAULT_OUT, articles: Path = CORPUS_DIR / "articles.json") -> list[Path]:
    """(Re)build the sample corpus under ``out``; returns the files written."""
    doc = json.loads(articles.read_text(encoding="utf-8"))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    build_warcs(doc, out)
    build_jsonl(doc, out)
    build_special(doc, out)
    return sorted(p for p in out.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the fictional CC-News sample corpus.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (wiped first)")
    args = parser.parse_args()
    for path in build(args.out):
        print(f"{path.stat().st_size:>8}  {path.relative_to(args.out)}")


if __name__ == "__main__":
    main()
