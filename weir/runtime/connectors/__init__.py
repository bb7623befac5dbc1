"""Connectors' engine-independent parts: readers of external sources and writers of
external sinks, as the executors' tasks run them."""
