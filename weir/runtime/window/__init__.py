"""Flink's window operator and its parts: windows, assigners, triggers, evictors."""
