"""Testing support: operator harness, in-process runner."""
