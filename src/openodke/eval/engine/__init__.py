"""The scoring engine, one for every extraction score at every size: reading rows (``jsonl``,
``fastload`` and its msgspec ``structs``), reducing them to columns (``columns``, ``key_table``,
``keyhash`` and its C twin ``_keyhash``), reading a few rows again (``rows``), ``matching``,
``joins`` over hash codes, and per-document ``items``.
"""
