"""Operator state over many micro-batches on both engines: each parallel instance of a
CheckpointedFunction keeps its numbering across batches (on Spark its instances are
rebuilt every batch and restored from the snapshot the last batch committed), its side
output and a keyed operator downstream see each record once; a sink function's instances
keep their buffers."""

from weir.common import Types
from weir.datastream import CheckpointedFunction, OutputTag, ProcessFunction, SinkFunction
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.state import ListStateDescriptor
from tests.streams import collect

EVERY_FIFTH = OutputTag("every-fifth", Types.PICKLED_BYTE_ARRAY())


class Tally(ProcessFunction, CheckpointedFunction):
    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def initialize_state(self, context):
        self.state = context.get_operator_state_store().get_list_state(
            ListStateDescriptor("tally", Types.LONG())
        )
        self.tally = sum(self.state.get())

    def snapshot_state(self, context):
        self.state.update([self.tally])

    def process_element(self, value, ctx):
        self.tally += 1
        if self.tally % 5 == 0:
            yield EVERY_FIFTH, (self.index, self.tally)
        yield self.index, value, self.tally


def test_instances_keep_their_operator_state_across_micro_batches(any_env):
    env = any_env.set_parallelism(2)
    source = env.from_source(
        DataGeneratorSource(lambda i: i, count=40, num_splits=2, max_records_per_batch=6),
        None,
        "numbers",
    )
    tallied = source.process(Tally())
    main = collect(tallied)
    fifth = collect(tallied.get_side_output(EVERY_FIFTH))
    totals = collect(
        tallied.key_by(lambda t: t[0])
        .map(lambda t: (t[0], t[2]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], max(a[1], b[1])))
    )
    env.execute("tally")
    # Every batch of 6 is read as two splits of 3: the first by instance 0, the second by 1.
    first = [v for v in range(40) if (v % 6 < 3 if v < 36 else v < 38)]
    second = [v for v in range(40) if v not in first]
    expected = [(0, v, n + 1) for n, v in enumerate(first)] + [
        (1, v, n + 1) for n, v in enumerate(second)
    ]
    assert sorted(main.results) == sorted(expected)
    assert sorted(fifth.results) == sorted(
        (i, n) for i, values in enumerate((first, second)) for n in range(5, len(values) + 1, 5)
    )
    assert max(totals.results) == (1, len(second))
    assert (0, len(first)) in totals.results


SENT = []  # what BufferingSink sent on, in groups (sink functions run on the driver)


class BufferingSink(SinkFunction, CheckpointedFunction):
    """Flink's documented operator-state example: buffers records and sends them on in
    groups of three; the buffer is its checkpointed list state."""

    def initialize_state(self, context):
        self.state = context.get_operator_state_store().get_list_state(
            ListStateDescriptor("buffered", Types.LONG())
        )
        self.buffered = self.state.get()

    def snapshot_state(self, context):
        self.state.update(self.buffered)

    def invoke(self, value, context):
        self.buffered.append(value)
        if len(self.buffered) == 3:
            SENT.append(self.buffered)
            self.buffered = []


def test_sink_instances_keep_their_buffers_across_micro_batches(any_env):
    SENT.clear()
    env = any_env.set_parallelism(2)
    source = env.from_source(
        DataGeneratorSource(lambda i: i, count=20, num_splits=2, max_records_per_batch=4),
        None,
        "numbers",
    )
    source.add_sink(BufferingSink())
    env.execute("buffering sink")
    # Every batch of 4 is read as two splits of 2: the first by subtask 0, the second by 1;
    # each subtask's sink instance sends its records on in threes, across batches.
    first = [v for v in range(20) if v % 4 < 2]
    second = [v for v in range(20) if v % 4 >= 2]
    assert sorted(SENT) == sorted(
        [first[i : i + 3] for i in range(0, 9, 3)] + [second[i : i + 3] for i in range(0, 9, 3)]
    )
