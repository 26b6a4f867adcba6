"""A model-free baseline: python examples/baseline/pipeline.py {in} {out}.

{in} is a folder of <name>.txt documents (Re-DocRED's: tokens joined by spaces); {out} is written
as triples rows, one JSON object per line: {"doc", "subject", "predicate", "object",
"subject_type", "object_type", "quote"}. No model is called and nothing is learned here: the table
in priors.json was learned once from Re-DocRED dev by learn.py.

1. Sentences: the text is cut at " . ", " ! " or " ? " before a capital, digit or quote.
2. Names: a known dev name (longest first, up to 6 words) unless a run of capitalised words
   there is longer; a date or year; or a run of capitalised words (joined by "of", "the", "de",
   ...; a sentence's first word only when dev does not mostly open sentences with it). Its type: the dev name's type, else its
   last word's, else PER for 2-3 plain capitalised words, else MISC.
3. Relations: for each ordered pair of names in one sentence, the rule for (head type, tail type,
   which comes first, a lower-case word between them) with the highest share right in dev, else
   the rule for the types and order alone; every rule in the table was right at least 20% of
   the time in dev (learn.py keeps no other).

Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TYPES = {
    "PER": "Person",
    "ORG": "Organization",
    "LOC": "Location",
    "TIME": "Time",
    "NUM": "Amount",
    "MISC": "Misc",
}
MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}
JOINERS = {"of", "the", "de", "for", "la", "von", "van", "del", "du", "der", "&"}
OPENERS = {
    "the",
    "a",
    "an",
    "in",
    "on",
    "at",
    "he",
    "she",
    "it",
    "his",
    "her",
    "they",
    "their",
    "this",
    "that",
    "these",
    "after",
    "during",
    "following",
    "as",
    "by",
    "from",
    "its",
    "however",
    "when",
    "while",
    "there",
    "with",
    "although",
    "since",
    "for",
}
SENTENCE_END = re.compile(r"(?<= [.!?]) (?=[A-Z0-9\"'(])")
YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
DAY = re.compile(r"^[0-9]{1,2}$")
LOWER_WORD = re.compile(r"^[a-z][a-z\-']+$")
MAX_NAME_WORDS = 6


def load_priors() -> dict:
    """The learned table."""
    return json.loads((HERE / "priors.json").read_text(encoding="utf-8"))


def sentences(text: str) -> list[tuple[int, str]]:
    """(start offset, sentence) for each sentence of the text."""
    out, start = [], 0
    for cut in SENTENCE_END.finditer(text):
        out.append((start, text[start : cut.start()]))
        start = cut.end()
    out.append((start, text[start:]))
    return [(s, t) for s, t in out if t.strip()]


def _date(tokens: list[str], i: int) -> int:
    """Tokens a date starting at ``i`` spans (0: none)."""
    low = [t.lower() for t in tokens[i : i + 4]]
    if (
        len(low) >= 4
        and low[0] in MONTHS
        and DAY.match(low[1])
        and low[2] == ","
        and YEAR.match(low[3])
    ):
        return 4  # July 15 , 1895
    if len(low) >= 3 and DAY.match(low[0]) and low[1] in MONTHS and YEAR.match(low[2]):
        return 3  # 15 July 1895
    if len(low) >= 2 and low[0] in MONTHS and YEAR.match(low[1]):
        return 2  # July 1895
    if low and YEAR.match(low[0]):
        return 1
    return 0


def _capitalised(tokens: list[str], i: int, openers: set[str]) -> int:
    """Tokens a run of capitalised words starting at ``i`` spans (0: none)."""
    if not tokens[i][:1].isupper():
        return 0
    if i == 0 and (tokens[i].lower() in OPENERS or tokens[i] in openers):
        return 0
    end = i + 1
    while end < len(tokens):
        if tokens[end][:1].isupper():
            end += 1
        elif (
            tokens[end].lower() in JOINERS
            and end + 1 < len(tokens)
            and tokens[end + 1][:1].isupper()
        ):
            end += 2
        else:
            break
    return end - i


def names_in(tokens: list[str], priors: dict) -> list[tuple[int, int, str, str]]:
    """(start, end, name, type) for each name found, left to right, not overlapping."""
    known, heads, openers = priors["names"], priors["heads"], set(priors["openers"])
    found, i = [], 0
    while i < len(tokens):
        run = _capitalised(tokens, i, openers)
        for width in range(min(MAX_NAME_WORDS, len(tokens) - i), 0, -1):
            name = " ".join(tokens[i : i + width])
            known_name = width > 1 or tokens[i][:1].isupper() or name.isdigit()
            if name in known and known_name and width >= run:
                found.append((i, i + width, name, known[name]))
                i += width
                break
        else:
            width = _date(tokens, i)
            if width:
                found.append((i, i + width, " ".join(tokens[i : i + width]), "TIME"))
                i += width
                continue
            width = run
            if width:
                words = tokens[i : i + width]
                kind = heads.get(words[-1].lower())
                if kind is None:
                    plain = 2 <= width <= 3 and all(w.isalpha() for w in words)
                    kind = "PER" if plain else "MISC"
                found.append((i, i + width, " ".join(words), kind))
                i += width
                continue
            i += 1
    return found


def relation(rules: dict, head: tuple, tail: tuple, order: str, words: set[str]) -> str | None:
    """The best rule's relation for an ordered pair, or None."""
    best = None
    for word in ["*", *sorted(words)]:
        rule = rules.get(f"{head[3]}|{tail[3]}|{order}|{word}")
        if rule is not None and (best is None or rule[1] > best[1]):
            best = rule
    return best[0] if best is not None else None


def extract(doc: str, text: str, priors: dict) -> list[dict]:
    """The triples rows for one document."""
    rules, max_gap = priors["rules"], priors["settings"]["max_gap"]
    rows, seen = [], set()
    for _, sentence in sentences(text):
        tokens = sentence.split(" ")
        found = names_in(tokens, priors)
        for a in range(len(found)):
            for b in range(a + 1, len(found)):
                first, second = found[a], found[b]
                if first[2] == second[2]:
                    continue
                gap = tokens[first[1] : second[0]]
                words = {t for t in gap if LOWER_WORD.match(t)} if len(gap) <= max_gap else set()
                for head, tail, order in ((first, second, "hf"), (second, first, "tf")):
                    predicate = relation(rules, head, tail, order, words)
                    key = (head[2], predicate, tail[2])
                    if predicate is None or key in seen:
                        continue
                    seen.add(key)
                    rows.append(
                        {
                            "doc": doc,
                            "subject": head[2],
                            "predicate": predicate,
                            "object": tail[2],
                            "subject_type": TYPES[head[3]],
                            "object_type": TYPES[tail[3]],
                            "quote": sentence,
                        }
                    )
    return rows


def main(argv: list[str]) -> int:
    """Read every <name>.txt under {in}; write the rows to {out}."""
    if len(argv) != 3:
        print("usage: python examples/baseline/pipeline.py IN_FOLDER OUT_JSONL", file=sys.stderr)
        return 2
    folder, out = Path(argv[1]), Path(argv[2])
    priors = load_priors()
    with out.open("w", encoding="utf-8") as handle:
        for path in sorted(folder.glob("*.txt")):
            for row in extract(path.stem, path.read_text(encoding="utf-8"), priors):
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
