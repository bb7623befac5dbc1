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
