"""Learn the baseline's table from Re-DocRED dev, once: python examples/baseline/learn.py.

Reads data/redocred/dev_revised.json and rel_info.json (never the test split) and writes
examples/baseline/priors.json:

- ``names``: mention names seen at least twice in dev -> their most frequent type;
- ``openers``: capitalised words that begin dev sentences (2+ times) but a name under 30% of the
  time ("According", "During");
- ``heads``: a mention's last word -> its most frequent type (seen 3+ times, 60%+ of the time);
- ``rules``: for an ordered pair of mentions in one sentence, keyed by (head type, tail type,
  which comes first, a word between them or "*"), the relation dev labels most often for such
  pairs and how often it is right (kept when seen 5+ times and right 20%+ of the time).

Standard library only, so the pipeline runs anywhere.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "data" / "redocred"
MIN_NAME = 2
MIN_HEAD, HEAD_SHARE = 3, 0.6
MIN_RULE, RULE_SHARE = 5, 0.2
MAX_GAP = 10
WORD = re.compile(r"^[a-z][a-z\-']+$")


def snake(label: str) -> str:
    """``"educated at"`` -> ``educated_at`` (the bench set's predicate names)."""
    return re.sub(r"[\W_]+", "_", label.casefold()).strip("_")


def between_words(tokens: list[str], start: int, end: int) -> set[str]:
    """Lower-case words (never a name's) strictly between two mentions, when they are at most MAX_GAP apart."""
    if end - start > MAX_GAP:
        return set()
    return {t for t in tokens[start:end] if WORD.match(t)}


def main() -> None:
    dev = json.loads((DATA / "dev_revised.json").read_text(encoding="utf-8"))
    relations = json.loads((DATA / "rel_info.json").read_text(encoding="utf-8"))
    name_types: dict[str, Counter[str]] = defaultdict(Counter)
    head_types: dict[str, Counter[str]] = defaultdict(Counter)
    seen: dict[tuple[str, ...], Counter[str | None]] = defaultdict(Counter)
    first_words: Counter[str] = Counter()
    first_named: Counter[str] = Counter()
    for doc in dev:
        starts = {(m["sent_id"], m["pos"][0]) for entity in doc["vertexSet"] for m in entity}
        for sent_id, tokens in enumerate(doc["sents"]):
            if tokens and tokens[0][:1].isupper():
                first_words[tokens[0]] += 1
                first_named[tokens[0]] += (sent_id, 0) in starts
        for entity in doc["vertexSet"]:
            for m in entity:
                name_types[m["name"]][m["type"]] += 1
                head_types[m["name"].split()[-1].lower()][m["type"]] += 1
        labels: dict[tuple[int, int], list[str]] = defaultdict(list)
        for label in doc["labels"]:
            labels[(label["h"], label["t"])].append(label["r"])
        by_sentence: dict[int, list[tuple[int, int, int, str]]] = defaultdict(list)
        for index, entity in enumerate(doc["vertexSet"]):
            for m in entity:
                by_sentence[m["sent_id"]].append((m["pos"][0], m["pos"][1], index, m["type"]))
        for sent_id, mentions in by_sentence.items():
            tokens = doc["sents"][sent_id]
            for first in mentions:
                for second in mentions:
                    if first[2] == second[2] or first[0] >= second[0]:
                        continue
                    words = between_words(tokens, first[1], second[0])
                    for h, t, order in ((first, second, "hf"), (second, first, "tf")):
                        found = labels.get((h[2], t[2])) or [None]
                        for key in [(h[3], t[3], order, "*")] + [
                            (h[3], t[3], order, w) for w in words
                        ]:
                            for r in found:
                                seen[key][r] += 1
    names = {
        name: counts.most_common(1)[0][0]
        for name, counts in sorted(name_types.items())
        if sum(counts.values()) >= MIN_NAME
    }
    heads = {}
    for word, counts in sorted(head_types.items()):
        total = sum(counts.values())
        kind, top = counts.most_common(1)[0]
        if total >= MIN_HEAD and top / total >= HEAD_SHARE:
            heads[word] = kind
    openers = sorted(
        w for w, n in first_words.items() if n >= MIN_NAME and first_named[w] / n < 0.3
    )
    rules = {}
    for key, counts in sorted(seen.items(), key=lambda kv: kv[0]):
        total = sum(counts.values())
        best = [(c, r) for r, c in counts.items() if r is not None]
        if total < MIN_RULE or not best:
            continue
        count, r = max(best)
        if count / total >= RULE_SHARE:
            rules["|".join(key)] = [snake(relations[r]), round(count / total, 3), total]
    out = {
        "source": "data/redocred/dev_revised.json (Re-DocRED dev, 500 documents)",
        "settings": {
            "min_name": MIN_NAME,
            "min_head": MIN_HEAD,
            "head_share": HEAD_SHARE,
            "min_rule": MIN_RULE,
            "rule_share": RULE_SHARE,
            "max_gap": MAX_GAP,
        },
        "openers": openers,
        "names": names,
        "heads": heads,
        "rules": rules,
    }
    (HERE / "priors.json").write_text(
        json.dumps(out, ensure_ascii=False, indent=0, sort_keys=False) + "\n", encoding="utf-8"
    )
    print(
        f"{len(openers)} openers, {len(names)} names, {len(heads)} head words, {len(rules)} rules -> priors.json"
    )


if __name__ == "__main__":
    main()
