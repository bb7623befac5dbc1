"""A fused chain of stateless steps (map, flat_map, filter, process, timestamps).

The chain runs over a whole batch of records at once: each step is one tight loop over a
list, so an Arrow batch costs one Python call per record per step and nothing more.
"""

import time
from itertools import compress
from operator import itemgetter
from typing import List, Sequence, Tuple

from weir.runtime.adapters import resolve
from weir.runtime.context import OperatorClock, ProcessContext, RuntimeContext, TimerService
from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.output_tag import split_side_output

Item = Tuple[object, object]  # (value, timestamp)
_value, _timestamp = itemgetter(0), itemgetter(1)
SideItem = Tuple[str, object, object]  # (tag_id, value, timestamp)


class Step:
    """One stateless step: `kind` is map, flat_map, filter, process or timestamps."""

    METHODS = {"map": "map", "flat_map": "flat_map", "filter": "filter",
               "process": "process_element", "timestamps": "extract_timestamp"}

    def __init__(self, kind: str, function, name: str):
        if kind not in self.METHODS:
            raise ValueError(f"unknown stateless step kind '{kind}'")
        self.kind = kind
        self.function = function
        self.name = name
        self.call = None

    def open(self, runtime_context) -> None:
        self.call = resolve(self.function, self.METHODS[self.kind])
        if self.kind != "timestamps" and hasattr(self.function, "open"):
            self.function.open(runtime_context)

    def close(self) -> None:
        if self.kind != "timestamps" and hasattr(self.function, "close"):
            self.function.close()

    def run(self, items: List[Item], side: List[SideItem]) -> List[Item]:
        try:
            return getattr(self, "_" + self.kind)(items, side)
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, self.call) from exc

    # map and filter loop in C (map, zip, compress): ~30% less per record than a
    # comprehension unpacking each (value, timestamp) pair
    def _map(self, items, side):
        return list(zip(map(self.call, map(_value, items)), map(_timestamp, items)))

    def _flat_map(self, items, side):
        call = self.call
        out = []
        for value, ts in items:
            result = call(value)
            if result is not None:
                out.extend((produced, ts) for produced in result)
        return out

    def _filter(self, items, side):
        return list(compress(items, map(self.call, map(_value, items))))

    def _timestamps(self, items, side):
        batch = getattr(self.function, "extract_timestamps", None)  # a WatermarkStrategy
        if batch is not None:
            return batch(items)
        call = self.call
        return [(value, int(call(value, ts))) for value, ts in items]

    def _process(self, items, side):
        call = self.call
        clock = OperatorClock()
        clock.processing_time = int(time.time() * 1000)
        out = []
        ctx = ProcessContext(TimerService(clock), lambda tag, v: side.append((tag, v, ts)))
        for value, ts in items:
            ctx.current_timestamp = ts
            result = call(value, ctx)
            if result is None:
                continue
            for produced in result:
                tag_id, produced = split_side_output(produced)
                if tag_id is None:
                    out.append((produced, ts))
                else:
                    side.append((tag_id, produced, ts))
        return out


class StatelessChain:
    def __init__(self, steps: Sequence[Step], task_name: str = "chain"):
        self.steps = list(steps)
        self.task_name = task_name

    def open(self, subtask_index=0, parallelism=1, job_parameters=None) -> None:
        for step in self.steps:
            step.open(RuntimeContext(step.name, None, subtask_index, parallelism,
                                     job_parameters=job_parameters))

    def close(self) -> None:
        for step in self.steps:
            step.close()

    def run(self, items: List[Item]) -> Tuple[List[Item], List[SideItem]]:
        """Returns the main outputs and the side outputs of `items`."""
        side: List[SideItem] = []
        for step in self.steps:
            items = step.run(items, side)
        return items, side
