"""Window transcripts through TestStream on both engines: each step one micro-batch."""

import pytest

from tests.transcripts.runner import expected_of, run_on_engine
from tests.transcripts.windows import TRANSCRIPTS


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.error is None], ids=repr)
def test_transcript_on_engine(any_env, transcript):
    produced = run_on_engine(any_env, transcript)
    assert [sorted(map(repr, step)) for step in produced] == expected_of(transcript)


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.error is not None], ids=repr)
def test_transcript_that_must_fail_on_engine(any_env, transcript):
    error, pattern = transcript.error
    with pytest.raises(error, match=pattern):
        run_on_engine(any_env, transcript)


def test_dropped_late_elements_are_a_job_metric(any_env):
    from weir.common import WatermarkStrategy
    from weir.datastream.window import TimestampedValue, TumblingEventTimeWindows
    from weir.testing.test_stream import TestStream
    from tests.transcripts.functions import add_values, key_of
    from tests.transcripts.runner import BatchCollector

    stream = (
        TestStream()
        .add_elements(TimestampedValue(("a", 1), 1))
        .advance_watermark_to(20)
        .add_elements(
            TimestampedValue(("a", 2), 3),
            TimestampedValue(("b", 3), 5),
            TimestampedValue(("b", 4), 25),
        )
    )
    source = any_env.from_source(stream, WatermarkStrategy.no_watermarks(), "late")
    counts = source.key_by(key_of).window(TumblingEventTimeWindows.of(10)).reduce(add_values)
    BatchCollector.outputs = []
    counts.uid("counts").map(lambda v: (v, 0)).add_sink(BatchCollector("main"))
    result = any_env.execute("late metric")
    assert sorted(v for _, v in BatchCollector.outputs) == [
        ("main", ("a", 1), 0),
        ("main", ("b", 4), 0),
    ]
    assert result.get_metrics() == {
        "counts.numLateRecordsDropped": 2,
        "source-0.numRecordsOut": 4,
        "sink-0.numRecordsIn": 2,
    }
    assert (result.records_read, result.records_written) == (4, 2)
