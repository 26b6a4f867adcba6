"""The public :class:`Ontology`: the data of ``model.py`` with the spec's methods, and the loaders.

Each method is a function over the data in a sibling module (``load``, ``checks``, ``snippet``,
``diff``); this module gathers them, so the imports run one way: ``model`` <- the functions <-
``ontology``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from openodke.ontology.checks import Diagnostic, check_ontology
from openodke.ontology.diff import OntologyDiff, diff_ontologies
from openodke.ontology.load import build, pydantic_mapping, read_json, read_yaml
from openodke.ontology.model import OntologyData
from openodke.ontology.snippet import OntologySnippet, make_snippet, never_offered, offered

__all__ = [
    "Ontology",
    "load_ontology",
    "ontology_from_dict",
    "ontology_from_json",
    "ontology_from_pydantic",
    "ontology_from_yaml",
]


class Ontology(OntologyData):
    """Types and predicates: what an extractor may say, and how facts are typed and keyed.

    Build one with :meth:`from_dict`, :meth:`from_json` or :meth:`from_yaml` (strict: every
    problem :meth:`validate` finds is raised at once). ``inverse_of`` need be declared on one side:
    construction fills the other when that side declares none.
    """

    # -- loading ---------------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, strict: bool = True, path: str | Path | None = None
    ) -> Ontology:
        """Build from a mapping; strict raises OntologyLoadError listing every problem."""
        return build(cls, data, strict=strict, path=path)

    @classmethod
    def from_json(cls, path: str | Path, *, strict: bool = True) -> Ontology:
        """Read an ontology JSON file; bad JSON is an InputError at ``path:line``."""
        return build(cls, read_json(path), strict=strict, path=path)

    @classmethod
    def from_yaml(cls, path: str | Path, *, strict: bool = True) -> Ontology:
        """Read an ontology YAML file; bad YAML is an InputError at ``path:line``."""
        return build(cls, read_yaml(path), strict=strict, path=path)

    @classmethod
    def load(cls, path: str | Path, *, strict: bool = True) -> Ontology:
        """Read JSON or YAML by the file's suffix (``.yaml``/``.yml`` is YAML, else JSON)."""
        if Path(path).suffix.lower() in {".yaml", ".yml"}:
            return cls.from_yaml(path, strict=strict)
        return cls.from_json(path, strict=strict)

    @classmethod
    def from_pydantic(
        cls, *models: type[BaseModel], name: str = "untitled", strict: bool = True
    ) -> Ontology:
        """One type per model class, one predicate per field (see ``ontology_from_pydantic``)."""
        return build(cls, pydantic_mapping(*models, name=name), strict=strict)

    # -- checks, snippets, diffs -----------------------------------------------------------

    def validate(self) -> list[Diagnostic]:  # type: ignore[override]
        """Every problem found, as Diagnostics with a code, a dotted path and a message."""
        return check_ontology(self)

    def snippet(self, type_name: str, limit: int | None = 25) -> OntologySnippet:
        """What an extractor is shown for one type: its predicates ranked and cut at ``limit``."""
        return make_snippet(self, type_name, limit=limit)

    def offered(
        self, types: list[str] | tuple[str, ...] | None = None, snippet_limit: int | None = 25
    ) -> dict[str, tuple[str, ...]]:
        """Type -> predicates its snippet offers; a type left out of ``types`` gets none."""
        return offered(self, types=types, snippet_limit=snippet_limit)

    def never_offered(
        self, types: list[str] | tuple[str, ...] | None = None, snippet_limit: int | None = 25
    ) -> dict[str, tuple[str, ...]]:
        """Type -> predicates covering it that no snippet shows (past the limit, or left out)."""
        return never_offered(self, types=types, snippet_limit=snippet_limit)

    def diff(self, other: OntologyData) -> OntologyDiff:
        """Changes from this ontology to ``other``, split into breaking and compatible."""
        return diff_ontologies(self, other)


def ontology_from_dict(
    data: Any, *, strict: bool = True, path: str | Path | None = None
) -> Ontology:
    """Build an Ontology from a mapping; OntologyLoadError lists every problem found.

    With ``strict=False`` only what stops the model being built (an unknown key, a wrong value)
    raises; the problems ``validate()`` finds are left for the caller to read.
    """
    return build(Ontology, data, strict=strict, path=path)


def ontology_from_json(path: str | Path, *, strict: bool = True) -> Ontology:
    """Read an ontology JSON file; invalid JSON is an InputError at ``path:line``."""
    return Ontology.from_json(path, strict=strict)


def ontology_from_yaml(path: str | Path, *, strict: bool = True) -> Ontology:
    """Read an ontology YAML file; invalid YAML is an InputError at ``path:line``."""
    return Ontology.from_yaml(path, strict=strict)


def load_ontology(path: str | Path, *, strict: bool = True) -> Ontology:
    """Read JSON or YAML by suffix: ``.yaml`` and ``.yml`` are YAML, anything else JSON."""
    return Ontology.load(path, strict=strict)


def ontology_from_pydantic(
    *models: type[BaseModel], name: str = "untitled", strict: bool = True
) -> Ontology:
    """An ontology from pydantic classes: one type per class, one predicate per field.

    A field typed as another given class makes an edge (its range is that type), any other type
    a property (``str`` -> ``string``, ``int`` -> ``integer``, ``float`` -> ``number``, ``bool``
    -> ``boolean``, ``date``, ``datetime``; anything else ``string``). A list, tuple or set makes
    the predicate ``multi``. The same field name on several classes is one predicate whose domain
    lists each class; it must have one range.
    """
    return Ontology.from_pydantic(*models, name=name, strict=strict)
