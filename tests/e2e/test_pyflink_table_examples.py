"""PyFlink's own Table API examples (tests/pyflink_table_examples: the wheel's, imports
changed) print on weir what PyFlink 2.3 printed, on the in-process executor and on Spark
(tests/table_output.py says which differences are allowed).

`basic_operations` fails on PyFlink itself: its `from pyflink.table.expressions import *`
brings in the expression function `json`, which shadows the json module in its
`parse_data` function. weir prints the same tables up to there and fails the same way.
"""

import os
import runpy
import sys

import pytest

from tests.table_output import assert_same_output

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyflink_table_examples")
RUNNING = ["multi_sink", "process_json_data", "process_json_data_with_udf", "word_count"]


def _expected(name):
    with open(os.path.join(EXAMPLES, f"{name}.flink.out")) as expected:
        return expected.read()


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.spark)])
def run_example(request, monkeypatch, capsys):
    runner = request.getfixturevalue(
        "run_program_locally" if request.param == "local" else "run_program")
    return lambda name: runner(os.path.join(EXAMPLES, f"{name}.py"))


@pytest.mark.parametrize("name", RUNNING)
def test_table_example_prints_what_pyflink_prints(run_example, name):
    assert_same_output(run_example(name), _expected(name))


def test_basic_operations_prints_pyflinks_tables_then_fails_where_pyflink_fails(
        monkeypatch, capsys):
    from weir.datastream import StreamExecutionEnvironment
    monkeypatch.setattr(StreamExecutionEnvironment, "get_execution_environment",
                        staticmethod(lambda configuration=None: StreamExecutionEnvironment(
                            configuration).set_executor("local")))
    monkeypatch.setattr(sys, "argv", ["basic_operations.py"])
    capsys.readouterr()
    with pytest.raises(Exception, match="'function' object has no attribute 'loads'"):
        runpy.run_path(os.path.join(EXAMPLES, "basic_operations.py"), run_name="__main__")
    assert_same_output(capsys.readouterr().out, _expected("basic_operations"))
