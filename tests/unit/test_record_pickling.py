"""Records and state as bytes (weir.runtime.pickling), without Spark: the standard pickle
where it works (the same bytes), classes it cannot find by name (defined in a function,
or of a module a worker cannot import) carried by value and read back by plain
pickle.loads in a process that never saw them, and a value nothing can pickle refused with
its type and why, naming the operator its records were for."""

import dataclasses
import os
import pickle
import subprocess
import sys
import threading

import pytest

from weir.runtime import pickling
from weir.runtime.errors import UserFunctionError
from weir.runtime.wire import Bundler


def test_what_pickle_can_pickle_is_pickled_by_pickle():
    value = [("a", 1, 2.5), {"k": [1, 2]}, None]
    assert pickling.dumps(value) == pickle.dumps(value, protocol=5)


def local_records():
    @dataclasses.dataclass
    class Reading:
        sensor: str
        value: int

        def doubled(self):
            return self.value * 2

    return [Reading("a", 1), Reading("b", 2)]


def test_a_class_defined_in_a_function_travels_by_value_to_another_process():
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(local_records())
    blob = pickling.dumps(local_records())
    code = (
        "import pickle, sys; records = pickle.loads(sys.stdin.buffer.read()); "
        "print([(type(r).__name__, r.sensor, r.doubled()) for r in records])"
    )
    read = subprocess.run(
        [sys.executable, "-c", code], input=blob, capture_output=True, check=True
    ).stdout.decode()
    assert read == "[('Reading', 'a', 2), ('Reading', 'b', 4)]\n"


def test_a_value_nothing_can_pickle_is_refused_with_its_type_and_why():
    with pytest.raises(pickling.NotSerializable) as refused:
        pickling.dumps([1, threading.Lock()])
    assert str(refused.value) == "TypeError: cannot pickle '_thread.lock' object"


def test_records_that_cannot_be_pickled_name_the_operator_they_were_for():
    bundler = Bundler()
    bundler.add_all("counts", 0, [3, 3], 0, [("a", threading.Lock()), ("b", 1)], [None, None])
    with pytest.raises(UserFunctionError) as failed:
        bundler.rows()
    assert str(failed.value) == (
        "WeirUserFunctionError: records for operator 'counts' cannot be serialized (record "
        "types: builtins.tuple): TypeError: cannot pickle '_thread.lock' object"
    )


SPARK_TEXT = """[STREAM_FAILED] Query [id = 5ac6] terminated with exception: [FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided function in foreach batch sink. Reason: An exception was raised by the Python Proxy. Return Message: Traceback (most recent call last):
  File "/x/py4j/clientserver.py", line 644, in _call_proxy
    return_value = getattr(self.pool[obj_id], method)(*params)
ValueError: Kafka sink 'sink-0': record Row(1, 'hi') cannot be serialized
	at org.apache.spark.sql.execution.streaming.MicroBatchExecution.run(MicroBatchExecution.scala:1)
== Logical Plan ==
~WriteToMicroBatchDataSourceV1 ForeachBatchSink
"""  # noqa: E501


def test_an_engine_failure_is_its_last_python_exception_with_the_trace_kept():
    from weir.runtime.errors import MARKER, marked_message

    message = marked_message(SPARK_TEXT)
    cause, _, kept = message.partition(" (the full trace: ")
    assert cause == "ValueError: Kafka sink 'sink-0': record Row(1, 'hi') cannot be serialized"
    with open(kept.rstrip(")"), encoding="utf-8") as handle:
        assert handle.read() == SPARK_TEXT
    os.remove(kept.rstrip(")"))
    assert (
        marked_message(f"noise\n{MARKER}: sink 's' failed: OSError: x\nmore")
        == "sink 's' failed: OSError: x"
    )
    assert marked_message("short and plain") == "short and plain"
