"""A compiled plan never changes (issue 47): a run takes a copy with what it decides
(PhysicalPlan.for_run), and nothing else can be set on it."""

import dataclasses

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.plan.physical import compile_plan


def _plan():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.from_collection([1, 2]).key_by(lambda x: x).reduce(lambda a, b: a + b).print()
    return compile_plan(env._graph.upstream_of(env._graph.sinks()), env)


def test_a_compiled_plan_is_frozen_and_a_run_takes_a_copy():
    plan = _plan()
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.run_id = "x"
    run = plan.for_run(run_id="r1", sink_job_id="s1", restoring=True)
    assert (run.run_id, run.sink_job_id, run.restoring) == ("r1", "s1", True)
    assert (plan.run_id, plan.sink_job_id, plan.restoring) == ("", "", False)
    assert run.keyed is plan.keyed  # (the compiled tasks are shared, not copied)


def test_a_run_sets_only_what_a_run_decides():
    with pytest.raises(TypeError, match="parallelism: not what a run decides"):
        _plan().for_run(parallelism=4)
