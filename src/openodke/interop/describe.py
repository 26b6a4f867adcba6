"""``odke eval pipeline --describe``: what a pipeline gets, what it writes, and what gold to write.

The examples are made by the code that reads them (``entity_key``, ``TripleRow``, ``GoldFact``),
so the text cannot drift from the format.
"""

from __future__ import annotations

import json

from openodke.interop.triples import TripleRow, entity_key

__all__ = ["describe_pipeline"]

_ROW = TripleRow(
    doc="halden",
    subject="Halden Robotics Ltd",
    predicate="based_in",
    object="Tromsvik",
    subject_type="Company",
    object_type="City",
    quote="The company is based in Tromsvik",
)


def _fields(required: bool) -> str:
    return ", ".join(
        name
        for name, info in TripleRow.model_fields.items()
        if info.is_required() is required and name != "schema_version"
    )


def describe_pipeline() -> str:
    """The contract of ``odke eval pipeline``, as ``--describe`` prints it."""
    row = _ROW.model_dump(exclude_defaults=True)
    subject_key = entity_key("Company", _ROW.subject)
    object_key = entity_key("City", str(_ROW.object))
    gold = {
        "doc_id": "halden.txt",
        "fact": {
            "subject": {"key": subject_key, "type": "Company"},
            "predicate": "based_in",
            "object_entity": {"key": object_key, "type": "City"},
        },
    }
    literal = {
        "doc_id": "halden.txt",
        "fact": {
            "subject": {"key": subject_key, "type": "Company"},
            "predicate": "employees",
            "object_value": 240,
        },
    }
    dumps = json.dumps
    return "\n".join(
        [
            "odke eval pipeline",
            '  --cmd        a command run with no shell: "python my_extract.py {in} {out}"',
            "               {in}   a folder holding one <name>.txt per document (halden.txt)",
            "               {out}  the path it must write: a JSONL file of triples rows (a folder",
            "                      for --adapter graphrag); what it prints on stderr is shown as",
            "                      it runs, each line prefixed [cmd]; --timeout (600 s) ends it",
            "  --run        my_pkg.extract:run or path/to/file.py:run: a function is called once",
            "               with the list of Documents (.id, .text) and returns triples rows",
            "               (dicts), TripleRows or Facts, or with --adapter langchain|langextract",
            "               the library's own GraphDocuments or AnnotatedDocuments; a class with",
            "               extract(document) is called once per Document and returns the same.",
            "               (odke eval extract --run calls a plain function once per Document.)",
            "  --predictions  a file already written, read with --adapter (triples, langchain,",
            "               langextract, graphrag); a file of Fact rows is read as Facts",
            f"  triples row  {dumps(row, ensure_ascii=False)}",
            f"    required   {_fields(True)}; doc is a document id, file name or stem",
            "               (halden.txt, halden); object a name, or a literal (string, number, bool)",
            f"    optional   {_fields(False)}",
            "  labels       --labels: GoldFact(doc_id, fact), one JSON object per line",
            f"    edge       {dumps(gold, ensure_ascii=False)}",
            f"    literal    {dumps(literal, ensure_ascii=False)}",
            "    or         triples rows, read as predictions are (odke label convert writes",
            "               them as GoldFact rows)",
            "  keys         a row's entity is keyed Type:name, the name case-folded with spaces",
            f"               collapsed: {_ROW.subject!r} typed Company is {subject_key!r}.",
            "               Gold keys match by what they mean: case and spaces aside, and",
            f"               without a prefix of the entity's own type ({_ROW.subject!r},",
            f"               {subject_key.split(':', 1)[1]!r} and {subject_key!r} typed Company are one",
            "               entity). A row without subject_type takes the predicate's domain",
            "               (with --ontology), else Thing, which matches any gold type",
            "  types        other names for the gold's types: --type-map FILE",
            '               ({"Organization": "Company"}), or the ontology\'s type aliases;',
            "               --match names scores (subject name, predicate, object) alone",
            "  documents    --documents: a folder (a file's id is its name, halden.txt) or",
            "               Document JSONL; or --bench DIR from odke bench prepare",
            "  exit codes   0 scored; 1 the pipeline failed (exited non-zero, timed out, wrote",
            "               nothing at {out}), or a --fail-under gate failed; 2 unreadable input",
        ]
    )
