"""The shapes of the benchmarks' own files, checked before anything reads them.

Re-DocRED's ``rel_info.json`` (Wikidata id → relation name), its split files (a list of
``{title, sents, vertexSet, labels}``), Revisit-DocRED's ``reverse_rules.json``; Text2KGBench's
ontology JSON, ground-truth and test rows. Fields the readers do not use are allowed as they
are; those they use must have the type they need (a relation name is a string, a label's ``h``
an index into its document's ``vertexSet``), so a malformed file is an InputError naming the
file, the line where there is one, and the field: ``rel_info.json: "P17": expected a string``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from openodke.errors import InputError
from openodke.safeio import name_problem

__all__ = [
    "DocredDoc",
    "LabelledDoc",
    "TekgenGoldRow",
    "TekgenOntology",
    "TekgenSentence",
    "check",
    "check_file_id",
    "rel_info",
    "reverse_rules",
    "split",
]

Text = Annotated[StrictStr, Field(min_length=1)]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class NamedMention(_Shape):
    """One mention of a ``vertexSet`` entry, as a training file needs it."""

    name: StrictStr


class Mention(NamedMention):
    """One mention of a ``vertexSet`` entry, with its DocRED type."""

    type: StrictStr


class Label(_Shape):
    """One labelled relation: head and tail entry indices and a relation id."""

    h: StrictInt = Field(ge=0)
    t: StrictInt = Field(ge=0)
    r: Text


class LabelledDoc(_Shape):
    """A DocRED document's entities and labels (what a training file must have)."""

    vertexSet: list[Annotated[list[NamedMention], Field(min_length=1)]]  # noqa: N815 - the file's
    labels: list[Label]

    @model_validator(mode="after")
    def _indices(self) -> LabelledDoc:
        entries = len(self.vertexSet)
        for number, label in enumerate(self.labels):
            for end in ("h", "t"):
                if getattr(label, end) >= entries:
                    raise ValueError(
                        f"labels.{number}.{end}: {getattr(label, end)} is not an index of "
                        f"vertexSet ({entries} entries)"
                    )
        return self


class DocredDoc(LabelledDoc):
    """A Re-DocRED document."""

    title: StrictStr
    sents: list[list[StrictStr]]
    # Narrower than the base's: a prepared set needs each mention's type.
    vertexSet: list[Annotated[list[Mention], Field(min_length=1)]]  # type: ignore[assignment]  # noqa: N815


class Concept(_Shape):
    """A Text2KGBench concept."""

    qid: Text
    label: Text


class Relation(_Shape):
    """A Text2KGBench relation; an empty or missing domain or range is open."""

    pid: StrictStr
    label: Text
    domain: StrictStr | None = None
    range: StrictStr | None = None


class TekgenOntology(_Shape):
    """A Text2KGBench ontology file."""

    id: StrictStr | None = None
    concepts: list[Concept] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)


class Triple(_Shape):
    """A ground-truth triple."""

    sub: StrictStr
    rel: Text
    obj: StrictStr


class TekgenSentence(_Shape):
    """A test sentence."""

    id: Text
    sent: StrictStr


class TekgenGoldRow(TekgenSentence):
    """A ground-truth row: a sentence and its triples."""

    triples: list[Triple]


rel_info: TypeAdapter[dict[Text, Text]] = TypeAdapter(dict[Text, Text])
"""``rel_info.json``: relation id → name."""

reverse_rules: TypeAdapter[dict[Text, list[Text]]] = TypeAdapter(dict[Text, list[Text]])
"""``reverse_rules.json``: relation id → the relation ids that hold the other way."""

split: TypeAdapter[list[DocredDoc]] = TypeAdapter(list[DocredDoc])
"""A Re-DocRED split file."""


def _message(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] not in ("value_error", "missing") and "input" in first:
        found = first["input"]
        shown = repr(found) if not isinstance(found, dict | list) else type(found).__name__
        message += f", got {shown[:60]}"
    more = len(error.errors()) - 1
    return f"{where}: {message}" + (f" (and {more} more)" if more else "") if where else message


def check(
    shape: TypeAdapter[Any] | type[BaseModel],
    value: Any,
    *,
    path: str,
    line: int | None = None,
    at: str = "",
) -> Any:
    """``value`` validated as ``shape`` (the value itself is returned, unchanged), or an
    InputError naming ``path``, ``line`` and the first bad field (after ``at``: ``[3]``)."""
    try:
        if isinstance(shape, TypeAdapter):
            shape.validate_python(value)
        else:
            shape.model_validate(value)
    except ValidationError as error:
        message = _message(error)
        raise InputError(f"{at}.{message}" if at else message, path=path, line=line) from None
    return value


def check_file_id(value: str, *, path: str, line: int | None = None) -> str:
    """``value``, refused when it cannot name a file (``docs/<id>.txt``)."""
    problem = name_problem(value)
    if problem is not None:
        raise InputError(
            f"id {value[:60]!r} {problem}: it names a file (docs/<id>.txt)", path=path, line=line
        )
    return value
