"""Runs a window transcript on the operator harness or on an engine through TestStream."""

from weir.common import WatermarkStrategy
from weir.datastream import SinkFunction, StreamExecutionEnvironment
from weir.datastream.window import TimestampedValue
from weir.runtime.wire import MAX_WATERMARK
from weir.runtime.window.operator import LATE_DROPPED
from weir.testing.harness import KeyedOperatorHarness
from weir.testing.test_stream import TestStream
from tests.transcripts.functions import WithTimestamp, key_of
from tests.transcripts.windows import LATE


def window_spec(transcript):
    """The WindowSpec a transcript's pipeline declares (without running it)."""
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    stream = transcript.build(env.from_collection([("a", 0)]).key_by(key_of))
    return env._graph.node(stream._node_id).param("function")


def _harness_outputs(harness):
    outputs = [("main", v, ts) for v, ts in harness.extract_outputs()]
    outputs += [("late", v, ts) for v, ts in harness.side_outputs.pop(LATE.tag_id, [])]
    return outputs


def run_on_harness(transcript):
    """Per step, the outputs it produced; also the harness (for state checks)."""
    harness = KeyedOperatorHarness(window_spec(transcript), key_of)
    harness.set_processing_time(transcript.initial_processing_time)
    clock, produced = transcript.initial_processing_time, []
    for step, _ in transcript.steps:
        if step[0] == "elements":
            for key, value, ts in step[1]:
                harness.process_element((key, value), ts)
        elif step[0] == "watermark":
            harness.process_watermark(step[1])
        elif step[0] == "processing_time":
            clock += step[1]
            harness.set_processing_time(clock)
        else:
            harness.process_watermark(MAX_WATERMARK)
        produced.append(_harness_outputs(harness))
    return produced, harness


def test_stream_of(transcript):
    stream = TestStream(initial_processing_time=transcript.initial_processing_time)
    for step, _ in transcript.steps:
        if step[0] == "elements":
            stream.add_elements(*[TimestampedValue((k, v), ts) for k, v, ts in step[1]])
        elif step[0] == "watermark":
            stream.advance_watermark_to(step[1])
        elif step[0] == "processing_time":
            stream.advance_processing_time(step[1])
    return stream


class BatchCollector(SinkFunction):
    """Records (batch id, output) on the driver."""

    outputs = []

    def __init__(self, kind):
        self.kind = kind

    def invoke(self, value, context):
        BatchCollector.outputs.append((context.batch_id, (self.kind,) + tuple(value)))


def run_on_engine(env, transcript):
    """Per step, the outputs the engine produced in that step's micro-batch (main and late
    outputs of one job: the window operator's output is read by two consumers)."""
    BatchCollector.outputs = []
    source = env.from_source(
        test_stream_of(transcript), WatermarkStrategy.no_watermarks(), "transcript"
    )
    windowed = transcript.build(source.key_by(key_of))
    windowed.process(WithTimestamp()).add_sink(BatchCollector("main"))
    windowed.get_side_output(LATE).process(WithTimestamp()).add_sink(BatchCollector("late"))
    env.execute(transcript.name)
    steps = [s for s, _ in transcript.steps if s[0] != "end"]
    produced = [[] for _ in transcript.steps]
    for batch_id, output in BatchCollector.outputs:
        step = min(batch_id - 1, len(steps))  # batch i + 1 runs step i; then the end
        produced[step].append(output)
    return produced


def expected_of(transcript):
    return [sorted(map(repr, expected)) for _, expected in transcript.steps]


def late_dropped(harness):
    return harness.metric(LATE_DROPPED)
