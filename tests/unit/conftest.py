"""The quick tier: tests/unit runs without a JVM (`make test-unit`). A unit test that
starts Spark's JVM fails here, where the JVM was not running before it (in the whole
suite, an end-to-end test may have started it already)."""

import sys

import pytest


def _jvm_running() -> bool:
    context = getattr(sys.modules.get("pyspark"), "SparkContext", None)
    return context is not None and context._gateway is not None


@pytest.fixture(autouse=True)
def no_jvm_started():
    before = _jvm_running()
    yield
    if not before and _jvm_running():
        pytest.fail(
            "this unit test started Spark's JVM: tests that need Spark belong in "
            "tests/e2e (the quick tier, tests/unit, starts none)"
        )


@pytest.fixture
def numpy_cuts(monkeypatch):
    """Records how the window operator cuts micro-batches into (key, window) groups: each
    call returns a new list, which then gets, per cut, whether numpy made it
    (`WindowOperator.vectorized_groups` returned groups) or it fell back to Python."""
    from weir.runtime.window.operator import WindowOperator

    vectorized = WindowOperator.vectorized_groups

    def record() -> list:
        cuts: list = []

        def counted(operator, *columns):
            groups = vectorized(operator, *columns)
            cuts.append(groups is not None)
            return groups

        monkeypatch.setattr(WindowOperator, "vectorized_groups", counted)
        return cuts

    return record
