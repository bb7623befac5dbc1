"""One key group's share of one micro-batch, processed in Flink's order.

Records arrive sorted by their order key. Phase-0 records (produced upstream before the
watermark advance) go first, then timers fire at the new watermark and processing time,
then phase-1 records. Outputs are written straight into the columns they leave in: per
phase, per tag (None: the main output), values and timestamps (a router numbers them).

An operator gets the records as columns: values, timestamps and keys (as each travelled
with its record), and for an operator of several inputs each record's input label.
"""

from typing import Any, Callable, Dict, List, Optional, Tuple

from weir.runtime.keyed_operator import Emit, KeyedStreamOperator
from weir.runtime.wire import AFTER_WATERMARK, BEFORE_WATERMARK, RecordColumns

Columns = Tuple[List[Any], List[Any]]  # (values, timestamps)


class KeyGroupOutput:
    """What a key group's batch produced: `phases[phase]` is {tag: (values, timestamps)}
    (BEFORE_WATERMARK: up to the watermark's timers, AFTER_WATERMARK: after them)."""

    __slots__ = ("phases", "_side", "_values", "_stamps", "_convert")
    _side: Dict[Optional[str], Columns]
    _values: Optional[List[Any]]
    _stamps: Optional[List[Any]]  # (None as long as _values is)

    def __init__(self, convert: Optional[Callable[[Any], Any]]) -> None:
        self.phases: Tuple[Dict[Optional[str], Columns], ...] = ({}, {})
        self._convert = convert
        self.start_phase(BEFORE_WATERMARK)

    def start_phase(self, phase: int) -> None:
        self._side = self.phases[phase]
        self._values = self._stamps = None  # the main output's columns, made on first use

    @property
    def count(self) -> int:
        return sum(len(values) for by_tag in self.phases for values, _ in by_tag.values())

    def emit(self, tag_id: Optional[str], value: Any, timestamp: Optional[int]) -> None:
        if tag_id is None:
            if self._values is None:
                self._values, self._stamps = self._side[None] = ([], [])
            if self._convert is not None:
                value = self._convert(value)
            self._values.append(value)
            self._stamps.append(timestamp)  # type: ignore[union-attr]  # (made with _values)
            return
        columns = self._side.get(tag_id)
        if columns is None:
            columns = self._side[tag_id] = ([], [])
        columns[0].append(value)
        columns[1].append(timestamp)

    def records(self) -> List[Tuple[int, object, object, object]]:
        """(phase, tag, value, timestamp) of every output, phase by phase and tag by tag
        (for tests)."""
        return [
            (phase, tag, value, ts)
            for phase, by_tag in enumerate(self.phases)
            for tag, (values, stamps) in by_tag.items()
            for value, ts in zip(values, stamps)
        ]


def process_key_group_batch(
    operator: KeyedStreamOperator,
    key_group: int,
    records: RecordColumns,
    watermark: int,
    processing_time: int,
    convert: Optional[Callable[[Any], Any]] = None,
    end_of_input: bool = False,
) -> KeyGroupOutput:
    """`records`: the key group's records, with the keys they travelled with; `convert`
    converts main outputs to the operator's declared type; `end_of_input`: the key group's
    input ends with these records (Flink's +infinity watermark follows)."""
    output = KeyGroupOutput(convert)
    emit = output.emit
    split = records.first_after_watermark
    labelled = records.inputs is not None
    # (the `type: ignore[call-arg]`s: the columns, three or four, go in with *, and mypy
    # cannot count them)
    try:
        operator.backend.running_key_group = key_group
        operator.active_key_groups = (key_group,)
        if labelled:
            operator.process_labelled(*_columns(records, 0, split), emit)  # type: ignore[call-arg]
        else:
            # (three columns: records without input labels)
            _process(operator, *_columns(records, 0, split), emit)  # type: ignore[call-arg]
        operator.advance_watermark(watermark, emit)
        operator.advance_processing_time(processing_time, emit)
        output.start_phase(AFTER_WATERMARK)
        if labelled:
            operator.process_labelled(  # type: ignore[call-arg]
                *_columns(records, split, len(records)), emit
            )
        else:
            operator.process_batch(  # type: ignore[call-arg]
                *_columns(records, split, len(records)), emit
            )
        if end_of_input:
            operator.end_input(emit)
    finally:
        operator.active_key_groups = ()
        operator.backend.running_key_group = None
    return output


def _columns(records: RecordColumns, start: int, stop: int) -> Any:
    """records[start:stop] as the columns an operator takes: values, timestamps, input
    labels (an operator of several inputs) and keys; all of them without a copy. (A tuple
    of three or four lists: typed Any, as mypy cannot count a tuple passed with *.)"""
    columns = (
        (records.values, records.stamps, records.keys)
        if records.inputs is None
        else (records.values, records.stamps, records.inputs, records.keys)
    )
    if start == 0 and stop == len(records):
        return columns
    return tuple(column[start:stop] for column in columns)


def _process(
    operator: KeyedStreamOperator, values: List[Any], stamps: List[Any], keys: List[Any], emit: Emit
) -> None:
    """Records one by one (phase 0: few, produced by upstream timers)."""
    process = operator.process_element
    for value, timestamp, key in zip(values, stamps, keys):
        process(key, value, timestamp, emit)
