"""GDELT 2.0's ``masterfilelist.txt``: one ``<size> <md5> <url>`` line per published file.

The real list holds every 15-minute export, mentions and GKG file since February 2015 and has a few
lines that are blank or garbled. Those are reported (line number, text, reason), never fatal: one bad
line must not stop a month whose own lines are fine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from almanac.core.months import parse_month

# <YYYYMMDDHHMMSS>.<kind>.CSV.zip; GDELT spells exports and mentions ".CSV" and GKG files ".csv".
_FILE_NAME = re.compile(r"^(?P<stamp>\d{14})\.(?P<kind>export|mentions|gkg)\.csv\.zip$", re.IGNORECASE)
_MD5 = re.compile(r"^[0-9a-fA-F]{32}$")
SELECTABLE_KINDS = ("export", "mentions")


@dataclass(frozen=True)
class MasterFile:
    size: int
    md5: str  # lower-case hex
    url: str
    name: str  # the URL's last path segment, also the file name on disk
    stamp: str  # YYYYMMDDHHMMSS: the 15-minute slot, equal to the DATEADDED of the file's rows
    kind: str  # "export" | "mentions" | "gkg" | "other" (a file name this module does not know)
    line: int  # 1-based line number in the list

    @property
    def month(self) -> str:
        return f"{self.stamp[:4]}-{self.stamp[4:6]}"


@dataclass(frozen=True)
class MasterlistProblem:
    line: int
    text: str
    reason: str

    @property
    def stamp(self) -> str | None:
        """The slot of the file the line seems to name, so a month can tell which problems are its own."""
        match = re.search(r"/(\d{14})\.[A-Za-z.]+$", self.text.strip())
        return match.group(1) if match else None

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "text": self.text, "reason": self.reason}


def parse_masterfilelist(text: str) -> tuple[list[MasterFile], list[MasterlistProblem]]:
    """Every well-formed line as a :class:`MasterFile`, every other non-blank line as a problem.

    A file listed twice with the same size and MD5 is kept once; listed twice with different ones,
    the first line is kept and the second reported.
    """
    files: list[MasterFile] = []
    problems: list[MasterlistProblem] = []
    seen: dict[str, MasterFile] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        parsed = parse_line(line, number)
        if isinstance(parsed, str):
            problems.append(MasterlistProblem(number, raw, parsed))
            continue
        earlier = seen.get(parsed.url)
        if earlier is None:
            seen[parsed.url] = parsed
            files.append(parsed)
        elif (earlier.size, earlier.md5) != (parsed.size, parsed.md5):
            reason = f"listed again with a different size/MD5 (first on line {earlier.line})"
            problems.append(MasterlistProblem(number, raw, reason))
    return files, problems


def parse_line(line: str, number: int) -> MasterFile | str:
    """The file a stripped, non-blank line describes, or the reason it describes none."""
    parts = line.split()
    if len(parts) != 3:
        return f"expected '<size> <md5> <url>', got {len(parts)} space-separated parts"
    size_text, md5, url = parts
    if not size_text.isdigit():
        return f"size {size_text!r} is not a whole number"
    if not _MD5.match(md5):
        return f"MD5 {md5!r} is not 32 hex digits"
    if not url.startswith(("http://", "https://")):
        return f"URL {url!r} is not http(s)"
    name = url.rsplit("/", 1)[1]
    match = _FILE_NAME.match(name)
    if match is None:
        return MasterFile(int(size_text), md5.lower(), url, name, "", "other", number)
    stamp = match.group("stamp")
    try:
        datetime.strptime(stamp, "%Y%m%d%H%M%S")
    except ValueError:
        return f"file name {name!r} does not start with a valid YYYYMMDDHHMMSS time"
    return MasterFile(int(size_text), md5.lower(), url, name, stamp, match.group("kind").lower(), number)


def select_month(files: Iterable[MasterFile], month: str, include_mentions: bool) -> list[MasterFile]:
    """The month's export (and optionally mentions) files in time order, exports before mentions."""
    parse_month(month)  # a malformed month is an error, not an empty selection
    kinds = SELECTABLE_KINDS if include_mentions else ("export",)
    chosen = [f for f in files if f.kind in kinds and f.month == month]
    return sorted(chosen, key=lambda f: (f.stamp, kinds.index(f.kind)))


def month_problems(problems: Iterable[MasterlistProblem], month: str) -> list[MasterlistProblem]:
    """Problems on lines that name a file of ``month`` (by the time stamp in the file name)."""
    prefix = month.replace("-", "")
    return [p for p in problems if (p.stamp or "").startswith(prefix)]
