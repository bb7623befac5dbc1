"""The in-process executor: runs a physical plan without Spark (for tests and small jobs)."""
