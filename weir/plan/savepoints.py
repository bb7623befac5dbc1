"""Restoring a job from a savepoint (weir.runtime.state.savepoint), whatever the engine.

The job's operators are matched to the savepoint's state by uid, as in Flink: an operator
the savepoint does not know starts empty; state of an operator the job no longer has is
refused unless the job allows non-restored state. Keyed state keeps its key groups, so the
job may run at another parallelism, but not at another max parallelism.
"""

import pickle
import warnings
from typing import Any, Dict, Optional, Protocol, Set, Tuple

from weir.common.configuration import Configuration
from weir.plan.physical import PhysicalPlan
from weir.runtime.state.savepoint import KEYED, Savepoint, SavepointError

SAVEPOINT_PATH = "execution.savepoint.path"
IGNORE_UNCLAIMED = "execution.savepoint.ignore-unclaimed-state"


class _Environment(Protocol):
    """What restoring reads of the job's StreamExecutionEnvironment (a layer above: typed
    by its shape)."""

    @property
    def configuration(self) -> Optional[Configuration]: ...


def restore_settings(env: _Environment) -> Optional[Tuple[str, bool]]:
    """(savepoint path, allow non-restored state) from the job's configuration (Flink's
    keys), or None: the job starts without one."""
    configuration = env.configuration
    if configuration is None:
        return None
    path = configuration.get_string(SAVEPOINT_PATH)
    if not path:
        return None
    return path, bool(configuration.get_boolean(IGNORE_UNCLAIMED, False))


def plan_uids(plan: PhysicalPlan) -> Set[str]:
    """The uids of the job's operators that may hold state."""
    return {task.uid for task in plan.sources} | {task.uid for task in plan.keyed} | set(plan.sinks)


def apply_savepoint(
    plan: PhysicalPlan, savepoint: Savepoint, allow_non_restored: bool
) -> Tuple[PhysicalPlan, Optional[Dict[str, Any]]]:
    """(`plan` for a run that starts from `savepoint`: its sources at their positions,
    its keyed operators with their state (`savepoint_files`); the operator state to
    restore, what weir.runtime.state.operator_state.OperatorStateLog takes)."""
    if savepoint.max_parallelism != plan.max_parallelism:
        raise SavepointError(
            f"savepoint {savepoint.path} was taken with max parallelism "
            f"{savepoint.max_parallelism}; the job has max parallelism {plan.max_parallelism}"
            f": keyed state is split into max-parallelism key groups "
            f"(set_max_parallelism({savepoint.max_parallelism}) to restore it)"
        )
    unclaimed = sorted(savepoint.uids - plan_uids(plan))
    if unclaimed and not allow_non_restored:
        raise SavepointError(
            f"savepoint {savepoint.path} holds state of operators the job does not have: "
            f"{', '.join(unclaimed)}. Give them back their uid(...), or allow non-restored "
            f"state ('{IGNORE_UNCLAIMED}': true, or --allow-non-restored-state) to drop it"
        )
    _warn_generated_uids(plan)
    uids = plan_uids(plan)
    # A source that had ended ends again at once: its end of input (a +infinity watermark
    # for its group) reaches its consumers in the restored run too.
    plan = plan.for_run(
        start_offsets={
            uid: {**offset, "end": 0} if offset.get("end") else offset
            for uid, offset in savepoint.sources.items()
            if uid in uids
        },
        savepoint_files={
            uid: path for uid, path in savepoint.files_of(KEYED).items() if uid in uids
        },
        restoring=True,
    )
    snapshots = {
        (uid, index): (count, pickle.loads(blob))
        for (uid, index), (count, blob) in savepoint.operator_states().items()
        if uid in uids
    }
    restore = {"parallelism": savepoint.parallelism, "snapshots": snapshots} if snapshots else None
    return plan, restore


def _warn_generated_uids(plan: PhysicalPlan) -> None:
    generated = [task.uid for task in plan.keyed if not task.node.uid]
    if generated:
        warnings.warn(
            f"operators without uid(...) restored by their generated uids "
            f"({', '.join(generated)}): these change when the job's shape changes; give "
            "stateful operators a uid(...) to upgrade their code safely",
            stacklevel=3,
        )
