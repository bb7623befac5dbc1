"""The filesystem connector's `parquet` format on the in-process executor: columns read
by name with their types, a missing column NULL, a value of another type an error naming
the column; rows written as Parquet files and read back."""

import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment

T0 = datetime.datetime(2026, 1, 1, 8, 0, 0, 123000)


@pytest.fixture
def t_env():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    return StreamTableEnvironment.create(env)


def _write(directory, **columns):
    directory.mkdir(exist_ok=True)
    pq.write_table(pa.table(columns), directory / "part-0.parquet")


def _table(t_env, name, directory, schema):
    t_env.execute_sql(
        f"CREATE TABLE {name} ({schema}) WITH ('connector' = 'filesystem', "
        f"'path' = '{directory}', 'format' = 'parquet')"
    )


def _rows(t_env, query):
    with t_env.execute_sql(query).collect() as rows:
        return [tuple(row) for row in rows]


def test_parquet_columns_are_read_by_name_with_their_types(t_env, tmp_path):
    utc = datetime.timezone.utc
    _write(
        tmp_path / "in",
        n=pa.array([1, None, -3], pa.int32()),
        k=["a", "b", None],
        t=pa.array([T0, None, T0 + datetime.timedelta(seconds=1)], pa.timestamp("ms")),
        z=pa.array([T0.replace(tzinfo=utc), None, None], pa.timestamp("ms", tz="UTC")),
        d=pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-0.50")], pa.decimal128(10, 2)),
        x=[1.5, 2.0, None],
        f=pa.array([0.1, None, None], pa.float32()),
        b=[True, False, None],
    )
    _table(
        t_env,
        "p",
        tmp_path / "in",
        "k STRING, n INT, t TIMESTAMP(3), z TIMESTAMP(3), "
        "d DECIMAL(10, 2), x DOUBLE, f FLOAT, b BOOLEAN, missing BIGINT",
    )
    assert _rows(t_env, "SELECT * FROM p") == [
        ("a", 1, T0, T0, decimal.Decimal("1.25"), 1.5, pytest.approx(0.1), True, None),
        ("b", None, None, None, None, 2.0, None, False, None),
        (
            None,
            -3,
            T0 + datetime.timedelta(seconds=1),
            None,
            decimal.Decimal("-0.50"),
            None,
            None,
            None,
            None,
        ),
    ]


@pytest.mark.parametrize(
    "values, column, message",
    [
        (["1", "2"], "n INT", r"a str value \('1'\) in a INT column"),
        (pa.array([2**40, 1], pa.int64()), "n INT", r"1099511627776 is out of the range of INT"),
        ([True, False], "n BIGINT", r"a bool value \(True\) in a BIGINT column"),
        (
            pa.array([decimal.Decimal("123.45"), None], pa.decimal128(5, 2)),
            "n DECIMAL(3, 1)",
            r"123.45 does not fit DECIMAL\(3, 1\)",
        ),
    ],
)
def test_a_parquet_value_of_another_type_is_an_error_naming_it(
    t_env, tmp_path, values, column, message
):
    _write(tmp_path / "in", n=values)
    _table(t_env, "p", tmp_path / "in", column)
    with pytest.raises(Exception, match=f"parquet file\\(s\\) at {tmp_path / 'in'}: {message}"):
        _rows(t_env, "SELECT * FROM p")


def test_rows_written_as_parquet_read_back(t_env, tmp_path):
    _write(
        tmp_path / "in",
        k=["a", "b", "a"],
        n=pa.array([1, 2, 3], pa.int32()),
        t=pa.array([T0, T0, None], pa.timestamp("ms")),
    )
    _table(t_env, "p", tmp_path / "in", "k STRING, n INT, t TIMESTAMP(3)")
    _table(t_env, "o", tmp_path / "out", "k STRING, twice BIGINT, t TIMESTAMP(3)")
    t_env.execute_sql("INSERT INTO o SELECT k, CAST(n AS BIGINT) * 2, t FROM p WHERE n > 1").wait()
    files = list((tmp_path / "out").glob("*.parquet"))
    assert len(files) == 1
    assert pq.read_table(files[0]).to_pylist() == [
        {"k": "b", "twice": 4, "t": T0},
        {"k": "a", "twice": 6, "t": None},
    ]
    assert _rows(t_env, "SELECT k, twice FROM o") == [("b", 4), ("a", 6)]


def test_a_decimal_is_written_at_its_declared_precision_and_scale(t_env, tmp_path):
    _write(tmp_path / "in", d=pa.array([decimal.Decimal("1.25"), None], pa.decimal128(6, 2)))
    _table(t_env, "p", tmp_path / "in", "d DECIMAL(6, 2)")
    _table(t_env, "o", tmp_path / "out", "d DECIMAL(6, 2), e DECIMAL(12, 3)")
    t_env.execute_sql("INSERT INTO o SELECT d, CAST(d AS DECIMAL(12, 3)) FROM p").wait()
    written = pq.read_table(next((tmp_path / "out").glob("*.parquet")))
    assert [written.schema.field(n).type for n in ("d", "e")] == [
        pa.decimal128(6, 2),
        pa.decimal128(12, 3),
    ]
    assert written.to_pylist() == [
        {"d": decimal.Decimal("1.25"), "e": decimal.Decimal("1.250")},
        {"d": None, "e": None},
    ]
