"""weir.table's sliver of PyFlink's Table API: a datagen table as a DataStream."""

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import DataTypes, Schema, StreamTableEnvironment, TableDescriptor
from weir.table.expressions import col
from tests.streams import collect


def _stream(columns, table="source", **options):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(stream_execution_environment=env)
    schema = Schema.new_builder()
    for name, data_type in columns:
        schema = schema.column(name, data_type)
    descriptor = TableDescriptor.for_connector("datagen").schema(schema.build())
    for key, value in options.items():
        descriptor = descriptor.option(key.replace("_", "-").replace("--", "."), value)
    t_env.create_temporary_table(table, descriptor.build())
    return env, t_env.to_data_stream(t_env.from_path(table))


def test_sequence_and_random_columns_with_their_bounds():
    env, stream = _stream(
        [
            ("id", DataTypes.BIGINT()),
            ("score", DataTypes.INT()),
            ("name", DataTypes.STRING()),
            ("flag", DataTypes.BOOLEAN()),
        ],
        **{
            "fields.id.kind": "sequence",
            "fields.id.start": 5,
            "fields.id.end": 14,
            "fields.score.min": -3,
            "fields.score.max": 3,
            "fields.name.length": 4,
        },
    )
    sink = collect(stream)
    env.execute("datagen")
    rows = sink.results
    assert [r.id for r in rows] == list(range(5, 15))
    assert all(-3 <= r.score <= 3 and len(r.name) == 4 and r.flag in (True, False) for r in rows)
    assert list(rows[0].as_dict()) == ["id", "score", "name", "flag"]


def test_number_of_rows_bounds_and_rows_are_the_same_in_every_run():
    runs = []
    for _ in range(2):
        env, stream = _stream([("v", DataTypes.DOUBLE())], **{"number-of-rows": 3})
        sink = collect(stream)
        env.execute("datagen")
        runs.append([r.v for r in sink.results])
    assert len(runs[0]) == 3 and runs[0] == runs[1]
    assert all(5e-324 <= v <= 1.7976931348623157e308 for v in runs[0])  # Flink's range


def test_tables_of_the_same_shape_generate_different_rows():
    rows = []
    for table in ("left", "right", "left"):
        env, stream = _stream([("v", DataTypes.INT())], table, **{"number-of-rows": 5})
        sink = collect(stream)
        env.execute("datagen")
        rows.append([r.v for r in sink.results])
    assert rows[0] != rows[1] and rows[0] == rows[2]


@pytest.mark.parametrize(
    "columns, options, error",
    [
        ([("a", DataTypes.INT())], {"fields.b.kind": "random"}, "unknown option 'fields.b.kind'"),
        ([("a", DataTypes.INT())], {"fields.a.kind": "sequence"}, "needs 'fields.a.start'"),
        (
            [("a", DataTypes.STRING())],
            {"fields.a.kind": "sequence", "fields.a.start": 1, "fields.a.end": 2},
            "weir's sequences are integers",
        ),
        ([("a", DataTypes.INT())], {"fields.a.min": 5, "fields.a.max": 1}, "min 5 is above max 1"),
        ([("a", DataTypes.INT())], {"format": "json"}, "unknown option 'format'"),
        ([("a", DataTypes.INT())], {"fields.a.kind": "sequense"}, "unknown kind 'sequense'"),
        ([("a", DataTypes.STRING())], {"fields.a.min": 1}, "takes no option 'fields.a.min'"),
        ([("a", DataTypes.INT())], {"fields.a.start": 1}, "takes no option 'fields.a.start'"),
    ],
)
def test_bad_options_are_clear_errors(columns, options, error):
    with pytest.raises((ValueError, NotImplementedError), match=error):
        _stream(columns, **options)


def test_what_weir_lacks_of_the_table_api_is_named_as_missing():
    env = StreamExecutionEnvironment.get_execution_environment()
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_table(
        "k",
        TableDescriptor.for_connector("elasticsearch-7")
        .schema(Schema.new_builder().column("a", DataTypes.INT()).build())
        .build(),
    )
    with pytest.raises(NotImplementedError, match="the 'elasticsearch-7' table connector"):
        t_env.from_path("k")
    with pytest.raises(NotImplementedError, match="WITH RECURSIVE"):
        t_env.execute_sql("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r")
    with pytest.raises(
        ValueError, match="Sort on a non-time-attribute field is not supported"
    ):  # (Flink's streaming refusal)
        t_env.from_elements([(1,)], ["a"]).order_by(col("a"))
