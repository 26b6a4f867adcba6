"""GraphRAG output tables (parquet or CSV) as triples rows."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from openodke.errors import InputError
from openodke.interop.adapters._records import as_index, scalar
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow
from openodke.ontology import Ontology
from openodke.safeio import decode, max_file_bytes, open_regular, read_bytes
from openodke.types import Document

__all__ = [
    "GraphragNotes",
    "graphrag_notes",
    "is_sentence",
    "iter_graphrag",
    "iter_table",
    "read_graphrag",
    "read_table",
]

RELATED = "related_to"
"""The predicate of a relationship whose description is empty."""

_SUFFIXES = (".parquet", ".csv")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_BATCH = 65536  # parquet rows decoded at once


def read_graphrag(
    path: str | Path, documents: Iterable[Document] | DocumentIndex
) -> list[TripleRow]:
    """Read a GraphRAG index's relationships as triples rows (:func:`iter_graphrag`, listed)."""
    return list(iter_graphrag(path, documents))


def iter_graphrag(
    path: str | Path, documents: Iterable[Document] | DocumentIndex
) -> Iterator[TripleRow]:
    """Read a GraphRAG index's relationships as triples rows, one at a time: the relationships
    table is read as the rows are made, the other tables only for what joins them (a text unit's
    documents, a document's id, an entity's type), never their texts.

    ``path`` is GraphRAG's output folder, or its relationships file. Beside it the adapter reads
    ``relationships``, ``text_units`` and (when present) ``documents`` and ``entities``, each as
    ``<name>.parquet`` or ``<name>.csv`` (the ``create_final_<name>`` names of GraphRAG 0.x-1.x
    too). Parquet needs pyarrow: ``pip install openodke[parquet]``. CSV list cells may be JSON
    lists, Python lists or numpy's printed arrays.

    Mapping:

    - each relationship is one row per document it was read from: ``source`` -> ``subject``,
      ``target`` -> ``object``, ``description`` -> ``predicate`` (GraphRAG records no relation
      type; its description is the only statement of the relation, and with a prompt that writes
      a relation label there, the ontology finds it; an empty one is ``related_to``);
    - the entities table, when present, types the ends (its ``title`` -> ``type``);
    - documents: ``text_unit_ids`` -> the text_units table's ``document_ids`` (list, GraphRAG
      0.x-2.x) or ``document_id`` (3.x) -> the documents table's ``title`` (the input file name,
      ``halden.txt``: a document id, harness file name or source stem) or its ``text`` (equal to
      a document's), else the GraphRAG document id itself. A relationship read from two documents
      gives two rows (ids ``<id>~1``, ``<id>~2``); one from no document we know keeps GraphRAG's
      document (or text unit) id as ``doc``, so the harness drops and counts it;
    - GraphRAG records no spans: every row cites its whole document (``context``). ``weight`` is
      not a probability and is not used. ``extractor`` is ``graphrag``.
    """
    index = as_index(documents)
    folder, relationships_file = _locate(Path(path))
    units_file = _find(folder, "text_units")
    if units_file is None:
        raise InputError(
            "no text_units table (text_units.parquet or .csv) beside the relationships: "
            "it maps relationships to documents",
            path=str(path),
        )
    unit_docs = {str(row.get("id")): _unit_documents(row) for row in iter_table(units_file)}
    docs_file = _find(folder, "documents")
    our_doc: dict[str, str] = {}
    for row in iter_table(docs_file) if docs_file is not None else ():
        found = _match_document(row, index)
        if found is not None:
            our_doc[str(row.get("id"))] = found
    types: dict[str, str] = {}
    entities_file = _find(folder, "entities")
    for row in iter_table(entities_file) if entities_file is not None else ():
        title, kind = row.get("title"), row.get("type")
        if isinstance(title, str) and isinstance(kind, str) and kind.strip():
            types.setdefault(title, kind.strip())

    for number, relation in enumerate(iter_table(relationships_file), start=1):
        source, target = relation.get("source"), relation.get("target")
        if scalar(source) is None or scalar(target) is None or not str(source).strip():
            raise InputError(
                f"row {number}: a relationship needs 'source' and 'target'",
                path=str(relationships_file),
            )
        description = relation.get("description")
        predicate = description.strip() if isinstance(description, str) else ""
        refs: list[str] = []
        for unit in _as_list(relation.get("text_unit_ids")):
            for graphrag_doc in unit_docs.get(unit, [unit]) or [unit]:
                ref = our_doc.get(graphrag_doc) or index_id(index, graphrag_doc) or graphrag_doc
                if ref not in refs:
                    refs.append(ref)
        rel_id = relation.get("id")
        for k, ref in enumerate(refs, start=1):
            fact_id = None
            if isinstance(rel_id, str) and rel_id:
                fact_id = rel_id if len(refs) == 1 else f"{rel_id}~{k}"
            yield TripleRow(
                doc=ref,
                subject=str(source),
                subject_type=types.get(str(source)),
                predicate=predicate or RELATED,
                object=str(target),
                object_type=types.get(str(target)),
                extractor="graphrag",
                id=fact_id,
            )


def is_sentence(description: str) -> bool:
    """A description that reads as a sentence, not a relation label: four words or more, or
    ending in ".", "!" or "?" ("founded_by", "based in" are labels)."""
    text = description.strip()
    return len(text.split()) >= 4 or text.endswith((".", "!", "?"))


_PROMPT = (
    "GraphRAG records no relation type, so its description is scored as the predicate; to "
    "score it, prompt its graph extraction for labels: in prompts/extract_graph.txt "
    "(settings.yaml extract_graph.prompt) ask for relationship_description to be exactly one "
    "of {labels}, then index again"
)


def graphrag_notes(rows: Iterable[TripleRow], ontology: Ontology | None = None) -> list[str]:
    """A note when GraphRAG's relationship descriptions will not score as predicates.

    With an ontology: when none of them names one of its predicates (name, alias or label).
    Without: when most of them are sentences (:func:`is_sentence`), which can match no gold
    predicate. The note counts them, quotes one, and says how to prompt GraphRAG for labels.
    """
    notes = GraphragNotes(ontology)
    for row in rows:
        notes.add(row.predicate)
    return notes.notes()


class GraphragNotes:
    """:func:`graphrag_notes` worked out as the rows go by, holding counts, not rows."""

    def __init__(self, ontology: Ontology | None = None) -> None:
        self.ontology = ontology
        self.rows = 0
        self.sentences = 0
        self.example: str | None = None
        self.named = False  # a description names a predicate of the ontology

    def add(self, description: str) -> None:
        """Count one row's description (its predicate)."""
        self.rows += 1
        if is_sentence(description):
            self.sentences += 1
            if self.example is None:
                self.example = description
        if self.ontology is not None and not self.named:
            self.named = self.ontology.predicate(description) is not None

    def notes(self) -> list[str]:
        """The note, when one is due (see :func:`graphrag_notes`)."""
        if not self.rows:
            return []
        example = f" (e.g. {self.example!r})" if self.example is not None else ""
        if self.ontology is not None:
            if self.named:
                return []
            names = sorted(self.ontology.predicates)
            labels = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            return [
                f"graphrag: none of the {self.rows} relationship descriptions names a predicate "
                f"of the ontology; {self.sentences} are sentences, not labels{example}. "
                + _PROMPT.format(labels=f"the ontology's predicates ({labels})")
            ]
        if 2 * self.sentences <= self.rows:
            return []
        return [
            f"graphrag: {self.sentences} of the {self.rows} relationship descriptions are "
            f"sentences, not labels{example}, and can match no gold predicate. "
            + _PROMPT.format(labels="your gold's predicates")
        ]


def index_id(index: DocumentIndex, reference: str) -> str | None:
    """The id of the document ``reference`` names in ``index``, or None."""
    found = index.get(reference)
    return None if found is None else found.id


def _match_document(row: dict[str, Any], index: DocumentIndex) -> str | None:
    for key in ("title", "id"):
        value = row.get(key)
        if isinstance(value, str) and value:
            found = index_id(index, value)
            if found is not None:
                return found
    text = row.get("text")
    if isinstance(text, str) and text:
        doc = index.by_text(text)
        if doc is not None:
            return doc.id
    return None


def _unit_documents(row: dict[str, Any]) -> list[str]:
    if "document_ids" in row:
        return _as_list(row["document_ids"])
    value = row.get("document_id")
    return [str(value)] if isinstance(value, str | int) and str(value) else []


def _as_list(value: Any) -> list[str]:
    """A list cell as strings: a list or array, or its text in a CSV (JSON, Python or numpy)."""
    if value is None:
        return []
    if hasattr(value, "tolist") and not isinstance(value, str):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [str(item) for item in value if item is not None]
    text = str(value).strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            return [str(item) for item in parsed]
        # Python's repr (['a', 'b']) and numpy's printed arrays (['a' 'b'], one per line when
        # long) both quote each item; literal_eval would glue numpy's items together.
        quoted = [a or b for a, b in _QUOTED.findall(text)]
        if quoted:
            return quoted
        text = text.strip("[]")
    return [part.strip(" '\"") for part in re.split(r"[,\s]+", text) if part.strip(" '\"")]


def _locate(path: Path) -> tuple[Path, Path]:
    if path.is_dir():
        found = _find(path, "relationships")
        if found is None:
            raise InputError(
                "no relationships table (relationships.parquet or .csv) in this folder",
                path=str(path),
            )
        return path, found
    if not path.exists():
        raise InputError("no such file or folder", path=str(path))
    return path.parent, path


def _find(folder: Path, name: str) -> Path | None:
    for stem in (name, f"create_final_{name}"):
        for suffix in _SUFFIXES:
            candidate = folder / f"{stem}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def read_table(path: Path) -> list[dict[str, Any]]:
    """A parquet or CSV table as a list of row dicts; parquet needs the ``parquet`` extra."""
    return list(iter_table(path))


def iter_table(path: Path) -> Iterator[dict[str, Any]]:
    """A parquet or CSV table's row dicts, one at a time: parquet a record batch at a time
    (needs the ``parquet`` extra), CSV row by row from its text."""
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError(
                "reading parquet needs pyarrow: install openodke[parquet]", path=str(path)
            ) from None
        open_regular(path, what="a parquet table").close()
        try:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=_BATCH):
                yield from batch.to_pylist()
        except Exception as error:  # pyarrow raises its own error types for corrupt files
            raise InputError(f"cannot read parquet: {error}", path=str(path)) from None
        return
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with open_regular(path, what="a CSV table") as handle:
        if os.fstat(handle.fileno()).st_size > max_file_bytes():
            read_bytes(path, what="a CSV table")  # refused as a table read whole always was
        with io.TextIOWrapper(handle, encoding="utf-8-sig", newline="") as text:
            try:
                yield from csv.DictReader(text)
            except csv.Error as error:
                raise InputError(f"cannot read CSV: {error}", path=str(path)) from None
            except UnicodeDecodeError:
                decode(read_bytes(path, what="a CSV table"), path=str(path))  # names where
                raise
