"""A source task: reads a split, runs the stateless nodes fused behind the source and
routes every record to its consumers (weir.task.routing); the same code on every
executor."""

from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from weir.plan.physical import PhysicalPlan, SourceTask
from weir.runtime.errors import UserFunctionError, source_error
from weir.runtime.metrics import records_io
from weir.runtime.sources import END_SPLIT, RECORDS_IN_ERRORS, DeadLetter, SourceReader
from weir.runtime.wire import (
    AFTER_WATERMARK,
    END_OF_INPUT_TS,
    MAX_BUNDLE_RECORDS,
    Bundler,
    Channel,
    Control,
    SplitMark,
)
from weir.task.routing import Columns, Router, Tagged

# a partitioned source's split: (its partition, the partition's mark, its floor)
Bound = Tuple[Any, Optional[int], Optional[int]]


class SourceRunner:
    """Reads a source's splits into rows: records routed to their consumers, the source's
    largest timestamps for the watermark, ticks and a scripted source's controls. The
    stateless nodes fused behind the source are opened once per subtask and kept until
    `close()`."""

    def __init__(self, task: SourceTask, plan: PhysicalPlan, data_watermarks: bool):
        self.task = task
        self.plan = plan
        self.reader = task.node.param("reader")
        self.data_watermarks = data_watermarks and task.watermark is not None
        self.routers: Dict[int, Router] = {}  # subtask index -> Router

    def close(self) -> None:
        for router in self.routers.values():
            router.close()
        self.routers.clear()

    def read(
        self, split: Any, first: bool, chunks: Iterable[Columns]
    ) -> Iterator[List[Tuple[Any, ...]]]:
        """Yields lists of rows for `split`; `chunks` yields its (values, timestamps)."""
        bundler = Bundler()
        scripted = hasattr(self.reader, "processing_time")
        if first:
            clock = self.reader.processing_time(split) if scripted and split != END_SPLIT else None
            for uid in self.plan.ticked:
                bundler.add_ticks(uid, self.plan.max_parallelism, clock)
        if split == END_SPLIT:
            self._end(bundler)
            yield bundler.rows()
            return
        announced = self.reader.announced_watermark(split) if scripted else None
        if announced is not None:
            bundler.add_control(Channel.WATERMARK, Control.ANNOUNCE, announced)
        bound = self.reader.split_watermark(split) if self.data_watermarks else None
        if bound is not None and bound[0] is None:  # the source's watermark, announced
            bundler.add_control(Channel.WATERMARK, Control.ANNOUNCE, bound[2])
            bound = None
        yield from self._read_records(split, chunks, bundler, bound)

    def _end(self, bundler: Bundler) -> None:
        """The end of this source's input: every key group of the keyed operators downstream
        learns it in this micro-batch (and fires its end-of-input timers once all its
        sources have ended), the driver learns it, and the watermark group's watermark
        stops holding the others back."""
        for uid in self.task.ends:
            bundler.add_ends(uid, self.plan.max_parallelism, self.task.index)
        bundler.add_finished(self.task.index)
        bundler.add_control(Channel.WATERMARK, Control.END, END_OF_INPUT_TS)

    def _read_records(
        self, split: Any, chunks: Iterable[Columns], bundler: Bundler, bound: Optional[Bound] = None
    ) -> Iterator[List[Tuple[Any, ...]]]:
        """`bound`: (partition, its mark, floor) of a partitioned source's split (see
        weir.runtime.split_watermarks), or None."""
        subtask = split[0] % self.plan.parallelism
        router = self.routers.get(subtask)
        if router is None:
            router = self.routers[subtask] = Router(
                self.task.fused, self.plan, subtask, self.task.watermark
            )
        seen: Optional[List[int]]  # (the largest timestamps a data watermark's assigner saw)
        largest: Optional[int]  # (of `seen`, then at most the split's floor)
        counter, seen, read = 0, [] if self.data_watermarks else None, 0
        dead_letters, split_largest = 0, None
        for values, stamps in _named_errors(chunks, self.task.node.display_name()):
            read += len(values)
            outputs: Tagged = {None: (values, stamps)}
            if self.reader.dead_letter_tag is not None:
                outputs = self._dead_letters_apart(values, stamps)
                dead_letters += len(outputs[self.reader.dead_letter_tag][0])
            counter = router.route(
                outputs, AFTER_WATERMARK, split[0], counter, bundler, seen, subtask
            )
            if seen:
                largest = max(seen)
                seen.clear()
                if bound is not None:
                    split_largest = max(largest, split_largest or largest)
                    largest = _floored(split_largest, bound)
                if largest is not None:
                    bundler.add_control(Channel.WATERMARK, Control.SEEN, largest)
            yield bundler.rows()
        if split_largest is not None:
            assert bound is not None  # (split_largest is only set with a bound)
            bundler.add_control(
                Channel.SPLIT_WATERMARKS,
                Control.SEEN,
                payload=SplitMark(self.task.uid, bound[0], split_largest),
            )
        metrics = router.take_metrics(subtask)
        if read:
            metrics.update(records_io(self.task.uid, subtask, 0, read - dead_letters))
        bundler.add_metrics(metrics)
        if dead_letters:
            bundler.add_metrics({f"{self.task.uid}.{RECORDS_IN_ERRORS}": dead_letters})
        if bundler.done:
            yield bundler.rows()

    def _dead_letters_apart(self, values: List[Any], stamps: List[Any]) -> Tagged:
        """{None: the records read, tag: the dead letters, as Rows}."""
        main: Columns = ([], [])
        dead: Columns = ([], [])
        source = self.task.node.display_name()
        for value, stamp in zip(values, stamps):
            if isinstance(value, DeadLetter):
                dead[0].append(value.as_row(source))
                dead[1].append(stamp)
            else:
                main[0].append(value)
                main[1].append(stamp)
        return {None: main, self.reader.dead_letter_tag: dead}


def _floored(largest: int, bound: Bound) -> Optional[int]:
    """What a partitioned source's split reports for the watermark: its partition's
    largest timestamp, at most its floor (None: nothing)."""
    _, mark, floor = bound
    if floor is None:
        return None
    return min(max(largest, mark if mark is not None else largest), floor)


def _named_errors(chunks: Iterable[Columns], source: str) -> Iterator[Columns]:
    """`chunks`, with an error of the reader's named after its source."""
    try:
        yield from chunks
    except UserFunctionError:
        raise
    except Exception as exc:
        raise source_error(exc, source) from exc


def chunks_of(reader: SourceReader, split: Any) -> Iterator[Tuple[List[Any], List[Any]]]:
    """(values, timestamps) of a split, in chunks of at most MAX_BUNDLE_RECORDS."""
    return reader.split_chunks(split, MAX_BUNDLE_RECORDS)
