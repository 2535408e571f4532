"""Shorter forms of a name that still give it away: one implementation for the pipeline and the checker.

The leakage re-scan (almanac.foresight.leakage_scan) and the independent checker (almanac.check.text) both
ask the same questions of an answer — is it a person's name, what is its surname, its initials, which of
its parts are distinctive enough to point at it — and must answer them the same way, or the checker
flags what the pipeline was right to keep ("School" for "The Cathedral School") or misses what it drops.

* person: only a name that reads as a person's gives a surname alias; a name that starts with "The" or
  holds an organisation word ("The Cathedral School", "Brennford Rovers") is not a person whatever type
  was declared.
* acronym: the initials of two or more capitalised significant words ("NGF" for "Northern Games
  Federation"); matched case-sensitively by callers so that "WHO" is not "who".
* distinctive parts of an organisation's name: a run of two or more of its words that is not all generic
  ("Northern Games" of "Northern Games Federation"), or its first word alone when that word is a proper
  name rather than a generic one ("Brennford" of "Brennford Grammar School"; never "School", "Party",
  "University", "National" or "Northern").
"""

from __future__ import annotations

from almanac.core.text import fold

# Words that mark a club, company, party or body rather than a person; compared folded.
_ORGANISATION_TEXT = """
    united rovers fc afc city town athletic wanderers rangers ladies women academy club team party alliance
    front union league federation association council committee commission agency authority ministry
    department office board bank money capital holdings group company co corp corporation inc ltd llc plc
    foundation institute university college school hospital church court parliament assembly congress
    senate government orchestra band trust fund energy health media motors airlines airways systems
    software analytics chemicals industries partners services network news times
"""
ORGANISATION_WORDS = frozenset(_ORGANISATION_TEXT.split())
# Words that name no organisation in particular: a part made only of these (and stopwords) points nowhere.
_GENERIC_TEXT = """
    national international global world royal new general public state federal central regional local
    northern southern eastern western north south east west upper lower greater grand great first second
    american british european african asian english scottish welsh irish french german
    cathedral grammar high primary secondary community county city town district metropolitan municipal
    people peoples democratic republican liberal labour conservative socialist green progressive
    sports football cricket rugby olympic
"""
GENERIC_WORDS = ORGANISATION_WORDS | frozenset(_GENERIC_TEXT.split())
STOPWORDS = frozenset(["of", "the", "and", "for", "in", "on", "at", "to", "a", "an", "&", "de"])
_PARTICLE_TEXT = "van von de der den del della di da du dos das do la le al el bin ibn ben ter ten st st."
PARTICLES = frozenset(_PARTICLE_TEXT.split())
NAME_SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "md"])
MIN_PART_CHARS = 4  # a one-word part shorter than this is too ambiguous to count


def has_organisation_word(answer: str) -> bool:
    """The answer holds a word of clubs, companies and bodies ("United", "Party", "Bank")."""
    return bool(ORGANISATION_WORDS.intersection(fold(answer).split()))


def person_like(answer: str) -> bool:
    """Surnames are made only for what reads as a person's name, whatever type was declared."""
    words = answer.split()
    return bool(words) and words[0].casefold() != "the" and not has_organisation_word(answer)


def surnames(words: list[str]) -> list[str]:
    """A person's surname with and without particles ("van Beethoven", "Beethoven"); [] for one word."""
    while len(words) > 1 and words[-1].casefold() in NAME_SUFFIXES:
        words = words[:-1]
    if len(words) < 2:
        return []
    first_particle = len(words) - 1
    while first_particle > 1 and words[first_particle - 1].casefold() in PARTICLES:
        first_particle -= 1
    with_particles = " ".join(words[first_particle:])
    return [with_particles, words[-1]] if first_particle < len(words) - 1 else [words[-1]]


def acronym(words: list[str]) -> str | None:
    """Initials of two or more capitalised significant words, upper case; None otherwise."""
    significant = [word for word in words if word.casefold() not in STOPWORDS]
    if len(significant) < 2 or not all(word[0].isalpha() and word[0].isupper() for word in significant):
        return None
    return "".join(word[0] for word in significant).upper()


def without_article(words: list[str]) -> list[str]:
    return words[1:] if len(words) > 1 and words[0].casefold() == "the" else words


def distinctive_parts(answer: str) -> tuple[list[str], str | None]:
    """(multi-word parts, one-word part) of an organisation's name that still point at it.

    Multi-word parts: every run of two or more words shorter than the name, trimmed of stopwords at its
    ends, with at least one word that is not generic; longest first. One-word part: the first word, when
    it is capitalised, at least ``MIN_PART_CHARS`` letters, not generic and the name has more words;
    callers match it case-sensitively (a proper name, not the common word it may also spell).
    """
    words = without_article(answer.split())
    folded = [fold(word) for word in words]
    parts: list[str] = []
    seen = {" ".join(folded)}
    for size in range(len(words) - 1, 1, -1):
        for start in range(len(words) - size + 1):
            run = list(range(start, start + size))
            while run and folded[run[0]] in STOPWORDS:
                run = run[1:]
            while run and folded[run[-1]] in STOPWORDS:
                run = run[:-1]
            key = " ".join(folded[i] for i in run)
            if len(run) < 2 or key in seen or all(folded[i] in GENERIC_WORDS | STOPWORDS for i in run):
                continue
            seen.add(key)
            parts.append(" ".join(words[i] for i in run))
    first = words[0] if len(words) > 1 else None
    single = (
        first
        if first is not None
        and first[:1].isupper()
        and len(first) >= MIN_PART_CHARS
        and fold(first) not in GENERIC_WORDS | STOPWORDS
        else None
    )
    return parts, single
