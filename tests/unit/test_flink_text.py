"""print()'s text, typed conversion and BATCH rolling aggregations, checked against what
PyFlink 2.3 printed for the same values and programs."""

import pytest

from weir.common import Row, Types
from weir.common.flink_text import flink_text, java_float
from weir.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from weir.datastream.connectors.file_system import OutputFileConfig, RollingPolicy
from weir.runtime.sinks import PrintSink


@pytest.mark.parametrize(
    "value, single, text",
    [
        (110.1, False, "110.1"),
        (1e7, False, "1.0E7"),
        (1.5e-4, False, "1.5E-4"),
        (0.001, False, "0.001"),
        (100.0, False, "100.0"),
        (-2.5e10, False, "-2.5E10"),
        (110.1, True, "110.1"),
        (1e-5, True, "1.0E-5"),
        (float("nan"), False, "NaN"),
        (float("-inf"), True, "-Infinity"),
        (-0.0, False, "-0.0"),
    ],
)
def test_java_float_text(value, single, text):
    assert java_float(value, single) == text


def test_record_text_follows_the_declared_type():
    assert flink_text(("a", 5), Types.TUPLE([Types.STRING(), Types.INT()])) == "(a,5)"
    assert flink_text(("a", 5)) == "('a', 5)"  # untyped: Python's str()
    assert flink_text(Row(1, "x"), Types.ROW([Types.INT(), Types.STRING()])) == "+I[1,x]"
    assert (
        flink_text(
            (True, 2.0, None), Types.TUPLE([Types.BOOLEAN(), Types.DOUBLE(), Types.STRING()])
        )
        == "(true,2.0,null)"
    )
    assert flink_text("plain", Types.STRING()) == "plain"


def test_print_prefix_is_identifier_and_one_based_subtask():
    assert PrintSink("max").format(("a", 1)) == "max> ('a', 1)"
    assert PrintSink().format(("a", 1), 0) == "1> ('a', 1)"
    assert PrintSink("max").format(("a", 1), 1) == "max:2> ('a', 1)"
    assert PrintSink().format("x") == "x"


def test_a_typed_collection_holds_the_declared_values():
    row_type = Types.ROW_NAMED(["id", "info"], [Types.INT(), Types.STRING()])
    row = row_type.convert((1, "x"))
    assert isinstance(row, Row) and row.id == 1 and row.info == "x"
    assert Types.TUPLE([Types.STRING(), Types.FLOAT()]).convert(("a", 110.1)) == (
        "a",
        110.0999984741211,
    )  # as PyFlink: FLOAT is 32 bits
    with pytest.raises(TypeError, match=r"value\.id.*expected INT"):
        row_type.convert(("1", "x"))


def test_output_file_config_and_rolling_policy_builders():
    config = OutputFileConfig.builder().with_part_prefix("prefix").with_part_suffix(".ext").build()
    assert (config.get_part_prefix(), config.get_part_suffix()) == ("prefix", ".ext")
    assert RollingPolicy.default_rolling_policy().kind == "default"
    assert RollingPolicy.on_checkpoint_rolling_policy().kind == "on_checkpoint"
    with pytest.raises(ValueError, match="part prefix"):
        OutputFileConfig.builder().with_part_prefix("a/b")


def test_batch_mode_rolling_aggregations_emit_final_results(capsys):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    ds = env.from_collection(
        [("a", 1), ("b", 2), ("a", 3), ("c", 1), ("b", 5)],
        Types.TUPLE([Types.STRING(), Types.INT()]),
    )
    ds.key_by(lambda v: v[0]).sum(1).print()
    ds.key_by(lambda v: v[0]).reduce(lambda a, b: (a[0], max(a[1], b[1]))).print("max")
    env.execute()
    # PyFlink 2.3 printed these six lines for the same program (in another order)
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "(a,4)",
        "(b,7)",
        "(c,1)",
        "max> (a,3)",
        "max> (b,5)",
        "max> (c,1)",
    ]
