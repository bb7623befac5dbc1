"""Sink descriptions that engines write to (print, collect, sink functions; connectors'
sinks are in weir.runtime.connectors)."""

from typing import Any, List, Optional

from weir.common.flink_text import flink_text
from weir.common.typeinfo import TypeInformation


class PrintSink:
    """Flink's print(): each record as Flink writes it (flink_text), after a prefix of the
    sink identifier and, at parallelism above 1, the 1-based subtask (`id:2> `)."""

    def __init__(
        self,
        sink_identifier: Optional[str] = None,
        to_stderr: bool = False,
        type_info: Optional[TypeInformation] = None,
    ) -> None:
        self.sink_identifier = sink_identifier
        self.to_stderr = to_stderr
        self.type_info = type_info

    def format(self, value: Any, subtask: Optional[int] = None) -> str:
        parts = [
            p for p in (self.sink_identifier, None if subtask is None else str(subtask + 1)) if p
        ]
        prefix = ":".join(parts) + "> " if parts else ""
        return prefix + flink_text(value, self.type_info)


class CollectSink:
    """Collects records for execute_and_collect(); the engine fills `results`."""

    def __init__(self) -> None:
        self.results: List[Any] = []


class SinkFunctionSink:
    """A user SinkFunction (`invoke(value, context)`), called on the driver per batch."""

    def __init__(self, function: Any) -> None:
        self.function = function
