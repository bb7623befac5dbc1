"""One key group's share of one micro-batch, processed in Flink's order.

Records arrive sorted by their order key. Phase-0 records (produced upstream before the
watermark advance) go first, then timers fire at the new watermark and processing time,
then phase-1 records. Outputs get order keys of their own: this key group as producer, the
phase they were produced in, and a running counter.

An operator of one input gets (seq, value, timestamp) records and one key selector; an
operator of several inputs gets (seq, value, timestamp, input) records and a key selector
per input, and each record reaches it with its input label.
"""

from typing import List, Sequence, Tuple

from weir.runtime.wire import AFTER_WATERMARK, BEFORE_WATERMARK, PHASE_SHIFT, make_seq

Record = Tuple[int, object, object]  # (seq, value, timestamp)
Output = Tuple[int, object, object, object]  # (seq, tag_id, value, timestamp)


class _Collector:
    def __init__(self, key_group: int, convert):
        self.key_group = key_group
        self.outputs: List[Output] = []
        self.convert = convert
        self.start_phase(BEFORE_WATERMARK)

    def start_phase(self, phase: int) -> None:
        self._base = make_seq(phase, self.key_group, 0)  # + the running counter

    def emit(self, tag_id, value, timestamp) -> None:
        if tag_id is None and self.convert is not None:
            value = self.convert(value)
        out = self.outputs
        out.append((self._base + len(out), tag_id, value, timestamp))


def process_key_group_batch(operator, key_selector, key_group: int,
                            records: Sequence[Record], watermark: int,
                            processing_time: int, convert=None,
                            end_of_input: bool = False) -> List[Output]:
    """`key_selector`: a callable, or a tuple of one per input for labelled records;
    `convert` converts main outputs to the operator's declared type; `end_of_input`: the
    key group's input ends with these records (Flink's +infinity watermark follows)."""
    collector = _Collector(key_group, convert)
    emit = collector.emit
    operator.active_key_groups = (key_group,)
    first_after = next((i for i, r in enumerate(records) if r[0] >> PHASE_SHIFT), len(records))
    labelled = isinstance(key_selector, tuple)
    try:
        if labelled:
            operator.process_labelled(records[:first_after], key_selector, emit)
        else:
            _process(operator, key_selector, records[:first_after], emit)
        operator.advance_watermark(watermark, emit)
        operator.advance_processing_time(processing_time, emit)
        collector.start_phase(AFTER_WATERMARK)
        if labelled:
            operator.process_labelled(records[first_after:], key_selector, emit)
        else:
            operator.process_batch(records[first_after:], key_selector, emit)
        if end_of_input:
            operator.end_input(emit)
    finally:
        operator.active_key_groups = ()
    return collector.outputs


def _process(operator, key_selector, records, emit) -> None:
    process = operator.process_element
    for _, value, timestamp in records:
        process(key_selector(value), value, timestamp, emit)
