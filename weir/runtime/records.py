"""Record-level constants shared by every runtime and every engine."""

# Operators count what they drop as records on tags with this prefix (value None); engines
# sum them into the job's metrics as "<operator uid>.<metric name>".
METRIC_PREFIX = "\x00metric:"

# Flink's Long.MIN_VALUE / Long.MAX_VALUE watermarks.
MIN_WATERMARK = -(2**63)
MAX_WATERMARK = 2**63 - 1

# The end of a bounded input travels as a control record with this event time. It is the
# largest millisecond value Spark's TimestampType can hold comfortably; any watermark at or
# above END_OF_INPUT_THRESHOLD is the +infinity watermark of Flink.
END_OF_INPUT_TS = 9_000_000_000_000_000
END_OF_INPUT_THRESHOLD = 8_000_000_000_000_000

# A record's order key `seq` = phase << PHASE_SHIFT | producer << PRODUCER_SHIFT | counter.
# Phase 0 records were produced before the batch's watermark advance reached the producer
# (timer firings), phase 1 after it (element processing). Consumers process phase 0 records,
# then fire timers, then process phase 1 records, which is the order Flink's channels give.
PHASE_SHIFT = 62
PRODUCER_SHIFT = 40
COUNTER_MASK = (1 << PRODUCER_SHIFT) - 1
PRODUCER_MASK = (1 << (PHASE_SHIFT - PRODUCER_SHIFT)) - 1
BEFORE_WATERMARK = 0
AFTER_WATERMARK = 1


def make_seq(phase: int, producer: int, counter: int) -> int:
    return (phase << PHASE_SHIFT) | ((producer & PRODUCER_MASK) << PRODUCER_SHIFT) | (
        counter & COUNTER_MASK
    )


END_SEQ = (AFTER_WATERMARK << PHASE_SHIFT) | (PRODUCER_MASK << PRODUCER_SHIFT)


def engine_watermark_to_flink(watermark_ms: int) -> int:
    """Maps an engine watermark (0 before any event, huge at end of input) to Flink's."""
    if watermark_ms is None or watermark_ms <= 0:
        return MIN_WATERMARK
    if watermark_ms >= END_OF_INPUT_THRESHOLD:
        return MAX_WATERMARK
    return watermark_ms

