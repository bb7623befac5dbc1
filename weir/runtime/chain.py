"""A fused chain of stateless steps (map, flat_map, filter, process, timestamps).

The chain runs over a whole batch of records at once: each step is one tight loop over a
list, so an Arrow batch costs one Python call per record per step and nothing more.
"""

import time
from itertools import compress
from operator import itemgetter
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple

from weir.runtime.adapters import resolve
from weir.runtime.context import OperatorClock, ProcessContext, RuntimeContext, TimerService
from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.metrics import Report
from weir.runtime.output_tag import split_side_output

Item = Tuple[object, object]  # (value, timestamp)
_value, _timestamp = itemgetter(0), itemgetter(1)
SideItem = Tuple[str, object, Optional[int]]  # (tag_id, value, timestamp)


def columns_of(items: Sequence[Item]) -> Tuple[List[Any], List[Any]]:
    """(values, timestamps) of (value, timestamp) pairs, as the chain runs over them."""
    return list(map(_value, items)), list(map(_timestamp, items))


class Step:
    """One stateless step: `kind` is map, flat_map, filter, process or timestamps.

    A step runs over a batch as two parallel lists, values and their timestamps: map,
    filter and timestamp assignment then loop in C (map, compress) and build no
    (value, timestamp) pair per record."""

    METHODS = {
        "map": "map",
        "flat_map": "flat_map",
        "filter": "filter",
        "process": "process_element",
        "timestamps": "extract_timestamp",
    }

    def __init__(self, kind: str, function: Any, name: str) -> None:
        if kind not in self.METHODS:
            raise ValueError(f"unknown stateless step kind '{kind}'")
        self.kind = kind
        self.function = function
        self.name = name
        self.call: Any = None  # the user function's method, from open()

    def open(self, runtime_context: RuntimeContext) -> None:
        self.call = resolve(self.function, self.METHODS[self.kind])
        if self.kind != "timestamps" and hasattr(self.function, "open"):
            self.function.open(runtime_context)

    def close(self) -> None:
        if self.kind != "timestamps" and hasattr(self.function, "close"):
            self.function.close()

    def run(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        try:  # (a _<kind> method below)
            return getattr(self, "_" + self.kind)(  # type: ignore[no-any-return]
                values, stamps, side
            )
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, self.call) from exc

    def _map(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        return list(map(self.call, values)), stamps

    def _flat_map(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        call = self.call
        out_values: List[Any]
        out_stamps: List[Any]
        out_values, out_stamps = [], []
        for value, ts in zip(values, stamps):
            result = call(value)
            if result is not None:
                produced = list(result)
                out_values += produced
                out_stamps += [ts] * len(produced)
        return out_values, out_stamps

    def _filter(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        keep = list(map(self.call, values))
        return list(compress(values, keep)), list(compress(stamps, keep))

    def _timestamps(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        batch = getattr(self.function, "assign_timestamps", None)  # a WatermarkStrategy
        if batch is not None:
            return values, batch(values, stamps)
        call = self.call
        return values, [int(call(value, ts)) for value, ts in zip(values, stamps)]

    def _process(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        call = self.call
        clock = OperatorClock()
        clock.processing_time = int(time.time() * 1000)
        out_values: List[Any]
        out_stamps: List[Any]
        out_values, out_stamps = [], []
        ts: Any  # (the record's, which its side outputs take)
        ctx = ProcessContext(TimerService(clock), lambda tag, v: side.append((tag, v, ts)))
        for value, ts in zip(values, stamps):
            ctx.current_timestamp = ts
            result = call(value, ctx)
            if result is None:
                continue
            for produced in result:
                tag_id, produced = split_side_output(produced)
                if tag_id is None:
                    out_values.append(produced)
                    out_stamps.append(ts)
                else:
                    side.append((tag_id, produced, ts))
        return out_values, out_stamps


class ChainStep(Protocol):
    """What a chain runs: a Step, or weir.runtime.async_io's AsyncWaitStep."""

    name: str

    def open(self, runtime_context: RuntimeContext) -> None: ...

    def close(self) -> None: ...

    def run(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]: ...


class StatelessChain:
    def __init__(self, steps: Sequence[ChainStep], task_name: str = "chain") -> None:
        self.steps = list(steps)
        self.task_name = task_name

    def open(
        self,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.contexts = [
            RuntimeContext(
                step.name, None, subtask_index, parallelism, job_parameters=job_parameters
            )
            for step in self.steps
        ]
        for step, context in zip(self.steps, self.contexts):
            step.open(context)

    def take_metrics(self) -> Dict[str, Report]:
        """What the steps' metric groups report (weir.runtime.metrics)."""
        reports: Dict[str, Report] = {}
        for context in self.contexts:
            reports.update(context.get_metrics_group().take_increments())
        return reports

    def close(self) -> None:
        for step in self.steps:
            step.close()

    def run(self, items: List[Item]) -> Tuple[List[Item], List[SideItem]]:
        """Returns the main outputs and the side outputs of `items`."""
        values, stamps, side = self.run_columns(*columns_of(items))
        return list(zip(values, stamps)), side

    def run_columns(
        self, values: List[Any], stamps: List[Any]
    ) -> Tuple[List[Any], List[Any], List[SideItem]]:
        """`run` over values and their timestamps as parallel lists: the main outputs'
        values and timestamps, and the side outputs."""
        side: List[SideItem] = []
        for step in self.steps:
            values, stamps = step.run(values, stamps, side)
        return values, stamps, side


# The methods of a two-input function, per input, by step kind.
TWO_INPUT_METHODS = {
    "map": ("map1", "map2"),
    "flat_map": ("flat_map1", "flat_map2"),
    "process": ("process_element1", "process_element2"),
}


class TwoInputChain:
    """A stateless operator of two inputs (CoMapFunction, CoFlatMapFunction,
    CoProcessFunction): the records of input i go through the function's method of that
    input (map1/map2, flat_map1/flat_map2, process_element1/process_element2), each as a
    one-input chain (with the operator's output conversion, if any)."""

    def __init__(self, function: Any, name: str, inputs: Sequence[StatelessChain]) -> None:
        self.function = function
        self.name = name
        self.inputs = tuple(inputs)

    def open(
        self,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.context = RuntimeContext(
            self.name, None, subtask_index, parallelism, job_parameters=job_parameters
        )
        if hasattr(self.function, "open"):
            self.function.open(self.context)
        for chain in self.inputs:
            chain.open(subtask_index, parallelism, job_parameters)

    def take_metrics(self) -> Dict[str, Report]:
        """What the function's metric group reports (weir.runtime.metrics)."""
        return self.context.get_metrics_group().take_increments()

    def close(self) -> None:
        if hasattr(self.function, "close"):
            self.function.close()

    def run_input(
        self, input_label: int, values: List[Any], stamps: List[Any]
    ) -> Tuple[List[Any], List[Any], List[SideItem]]:
        """`run_columns` of the records of input `input_label`."""
        return self.inputs[input_label].run_columns(values, stamps)
