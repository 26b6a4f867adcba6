"""Judges and labels: second opinions on gold, and numbers without gold."""
