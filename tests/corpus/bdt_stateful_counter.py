"""Per-user action counter with ValueState, emitting and resetting every third action.

Source: https://github.com/BDT-2025/IntroToPyFlink
  file 04-statefull_streaming_example.py (commit b8d7f86b7dbdd1bbddf75f97aa9d0c63b2e5468e),
  course material ("Big Data Technologies" 2025). Exercises: KeyedProcessFunction with a
  ValueState, clear(), process(..., output_type=Types.STRING()).

Adapted for weir's test corpus: nothing (the program already reads a collection); the user's
functions are verbatim; pyflink is replaced by weir in imports.
"""
from weir.common import Types
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.functions import KeyedProcessFunction, RuntimeContext
from weir.datastream.state import ValueStateDescriptor

class EventCountFunction(KeyedProcessFunction):

    def open(self, runtime_context: RuntimeContext):
        # Define state: count per key
        descriptor = ValueStateDescriptor("count", Types.INT())
        self.count_state = runtime_context.get_state(descriptor)

    def process_element(self, value, ctx):
        # Get current count or initialize
        count = self.count_state.value()
        if count is None:
            count = 0
        count += 1

        # Update state
        self.count_state.update(count)

        if count >= 3:
            # Emit user and count
            yield f"User {value[0]} reached {count} actions!"
            # Reset state
            self.count_state.clear()

def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)

    # Example input: list of tuples (user, action)
    input_data = [
        ("alice", "click"),
        ("alice", "click"),
        ("bob", "scroll"),
        ("alice", "click"),
        ("bob", "click"),
        ("bob", "scroll"),
        ("bob", "click"),
        ("alice", "scroll"),
        ("alice", "click"),
        ("bob", "click"),
        ("alice", "click"),
        ("bob", "scroll"),
        ("bob", "click"),
        ("alice", "scroll"),
        ("alice", "click"),
        ("bob", "click")
    ]

    ds = env.from_collection(input_data, type_info=Types.TUPLE([Types.STRING(), Types.STRING()]))

    ds \
        .key_by(lambda x: x[0]) \
        .process(EventCountFunction(), output_type=Types.STRING()) \
        .print()

    env.execute("Stateful User Action Counter")

if __name__ == "__main__":
    main()
