"""How an entity's key is read for matching (surface.md, "Entity identity when matching").

A key compares case-folded and whitespace-collapsed, as literals do, and a leading ``Type:`` equal
to the entity's own type is not part of it: ``ada``/Person is ``Person:ada``/Person. The C hashing
(``_keyhash.c``) does the same for ASCII keys and calls :func:`fold` for the others; a test holds
the two equal.
"""

from __future__ import annotations

__all__ = ["end_names", "fold", "key_parts", "node_of"]


def fold(text: str) -> str:
    """``text`` case-folded, its whitespace runs one space, none at either end."""
    return " ".join(text.casefold().split())


def key_parts(key: str) -> tuple[int, int, int]:
    """The hashes of a key's folded whole, of its prefix and of the rest when it reads
    ``prefix:rest`` with both non-blank (``-1`` and the whole's when it does not)."""
    whole = fold(key)
    at = whole.find(":")
    if at > 0:
        prefix, rest = whole[:at].removesuffix(" "), whole[at + 1 :].removeprefix(" ")
        if prefix and rest:
            return hash(whole), hash(prefix), hash(rest)
    h = hash(whole)
    return h, -1, h


def end_names(key: str, type_name: str) -> tuple[int, int]:
    """An entity end's identity name (its key without a leading ``Type:`` of its own type) and
    its bare name (without any leading ``prefix:``), as hashes."""
    whole, prefix, rest = key_parts(key)
    if prefix != -1 and prefix == hash(fold(type_name)):
        return rest, rest
    return whole, rest


def node_of(key: str, type_name: str) -> int:
    """The hash an entity end goes by in the engine's node columns."""
    return end_names(key, type_name)[0]
