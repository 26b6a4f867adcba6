"""Sinks: where a run's graph is written. JsonlSink is the one built here."""

from openodke.sinks.jsonl import JsonlSink

__all__ = ["JsonlSink"]
