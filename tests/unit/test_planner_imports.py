"""Spark starts fresh Python processes for each query to plan weir's source (offsets,
partitions) and keyed stage (`init`, for the state variables): the modules they import
must not pull in the task code (the physical plan, operators, routing), which only tasks
need (docs/benchmarks.md: a small job's fixed cost). The source's planner unpickles the
source reader (weir.runtime.sources) and pyspark has imported numpy there already; the
state planner needs neither."""

import subprocess
import sys

import pytest

TASK_CODE = (
    "weir.task.keyed_runner",
    "weir.task.source_runner",
    "weir.task.routing",
    "weir.plan.physical",
    "weir.plan.operators",
)


@pytest.mark.parametrize(
    "module, unwanted",
    [
        ("weir.spark.host", TASK_CODE + ("weir.runtime.sources", "weir.runtime.timers", "numpy")),
        ("weir.spark.source", TASK_CODE),
    ],
)
def test_a_planner_process_imports_no_task_code(module, unwanted):
    probe = f"import sys, {module}\nprint(sorted(m for m in {unwanted!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
