"""The scoring engine: reading rows (``jsonl``, ``fastload``), reducing them to key columns
(``key_table``, ``keyhash`` and its C twin ``_keyhash``), ``matching`` and per-document ``items``.
"""
