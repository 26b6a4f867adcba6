"""Reading what the judged commands take: texts by id, labels by fact id, the judge's identity."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from openodke.doc_ids import DocIds
from openodke.errors import InputError
from openodke.eval.stages.labels import GroundingLabel
from openodke.safeio import load_jsonl, read_json
from openodke.types import Document

__all__ = ["TextLookup", "judge_of_run", "labels_by_fact"]


class TextLookup(Mapping[str, str]):
    """Document texts by id, also found by file stem when the stem is unique (``halden``:
    :mod:`openodke.doc_ids`)."""

    def __init__(self, documents: Iterable[Document]) -> None:
        self._texts = {doc.id: doc.text for doc in documents}
        self._ids = DocIds(self._texts)

    def __getitem__(self, key: str) -> str:
        found = self._ids.find(key)
        if found is None:
            raise KeyError(key)
        return self._texts[self._ids.names[found]]

    def __contains__(self, key: object) -> bool:
        try:
            self[str(key)]
        except KeyError:
            return False
        return True

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def labels_by_fact(path: str | Path) -> dict[str, bool]:
    """GroundingLabel rows as fact id → true (supported) or not; a repeated id is an error."""
    out: dict[str, bool] = {}
    for number, row in enumerate(load_jsonl(path, GroundingLabel), start=1):
        if row.fact.id in out:
            raise InputError(f"fact {row.fact.id} is labelled twice", path=str(path), line=number)
        out[row.fact.id] = row.verdict == "supported"
    return out


def judge_of_run(facts_path: str | Path) -> tuple[str, str] | None:
    """The ground model and prompt a run's ``manifest.json`` records beside its facts, if any."""
    folder = Path(facts_path)
    folder = folder if folder.is_dir() else folder.parent
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return None
    try:
        data: Any = read_json(manifest, what="a run manifest")
    except InputError:
        return None
    if not isinstance(data, Mapping) or not isinstance(data.get("models") or {}, Mapping):
        return None
    model = (data.get("models") or {}).get("ground")
    if isinstance(model, Mapping):
        model = model.get("served") or model.get("asked")
    prompts: Sequence[Any] = data.get("prompts") or ()
    prompt = next((p for p in prompts if isinstance(p, str) and p.startswith("ground.")), None)
    if not isinstance(model, str) or prompt is None:
        return None
    return model, prompt
