"""Make docs.json with spaCy itself, once; the output is committed (spaCy is not an odke extra).

    python3.11 -m venv /tmp/spacy-venv && /tmp/spacy-venv/bin/pip install spacy
    /tmp/spacy-venv/bin/python examples/tools/spacy/make_docs.py

A blank English pipeline (no model download) with a sentencizer and an EntityRuler that knows the
names in ../texts; each text's ``doc.to_json()`` is written with the text's file name as ``doc``.
"""

import json
from pathlib import Path

import spacy

HERE = Path(__file__).resolve().parent
PATTERNS = [
    {"label": "ORG", "pattern": "Halden Robotics"},
    {"label": "ORG", "pattern": "Veska Labs"},
    {"label": "PERSON", "pattern": "Ada Brandt"},
    {"label": "PERSON", "pattern": "Tomas Quill"},
    {"label": "GPE", "pattern": "Tromsø"},
    {"label": "GPE", "pattern": "Porto"},
]


def main() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("entity_ruler").add_patterns(PATTERNS)
    out = []
    for path in sorted((HERE.parent / "texts").glob("*.txt")):
        doc = nlp(path.read_text(encoding="utf-8"))
        out.append({"doc": path.name, "spacy": doc.to_json()})
    versions = {"spacy": spacy.__version__}
    text = json.dumps({"made_with": versions, "docs": out}, ensure_ascii=False, indent=1)
    (HERE / "docs.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
