"""One key group's share of one micro-batch, processed in Flink's order.

Records arrive sorted by their order key. Phase-0 records (produced upstream before the
watermark advance) go first, then timers fire at the new watermark and processing time,
then phase-1 records. Outputs get order keys of their own: this key group as producer, the
phase they were produced in, and a running counter.
"""

from typing import Callable, List, Sequence, Tuple

from weir.runtime.records import (AFTER_WATERMARK, BEFORE_WATERMARK, PHASE_SHIFT, make_seq)

Record = Tuple[int, object, object]  # (seq, value, timestamp)
Output = Tuple[int, object, object, object]  # (seq, tag_id, value, timestamp)


class _Collector:
    def __init__(self, key_group: int, validate):
        self.key_group = key_group
        self.outputs: List[Output] = []
        self.phase = BEFORE_WATERMARK
        self.validate = validate

    def emit(self, tag_id, value, timestamp) -> None:
        if tag_id is None and self.validate is not None:
            self.validate(value)
        out = self.outputs
        out.append((make_seq(self.phase, self.key_group, len(out)), tag_id, value, timestamp))


def process_key_group_batch(operator, key_selector: Callable, key_group: int,
                            records: Sequence[Record], watermark: int,
                            processing_time: int, validate=None) -> List[Output]:
    collector = _Collector(key_group, validate)
    emit = collector.emit
    operator.active_key_groups = (key_group,)
    first_after = next((i for i, r in enumerate(records) if r[0] >> PHASE_SHIFT), len(records))
    process = operator.process_element
    try:
        for _, value, timestamp in records[:first_after]:
            process(key_selector(value), value, timestamp, emit)
        operator.advance_watermark(watermark, emit)
        operator.advance_processing_time(processing_time, emit)
        collector.phase = AFTER_WATERMARK
        operator.process_elements(records[first_after:], key_selector, emit)
    finally:
        operator.active_key_groups = ()
    return collector.outputs
