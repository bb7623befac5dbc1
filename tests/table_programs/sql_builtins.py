"""Flink's built-in scalar functions in SQL and in the Table API's expressions
(weir.table.scalar_builtins): arithmetic, text, conditions and time, NULLs included;
a DATE compared with a text literal."""

import datetime
import decimal

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expression import TimeIntervalUnit
from weir.table.expressions import col, lit

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.get_config().set("table.local-time-zone", "UTC")
rows = [
    (
        1,
        -2.75,
        decimal.Decimal("12.345"),
        "  hello World  ",
        "a,b,c",
        datetime.date(2021, 7, 1),
        datetime.datetime(2021, 7, 4, 13, 45, 30, 123000),
    ),
    (
        2,
        16.0,
        decimal.Decimal("-0.5"),
        "flink-SQL_func 2x",
        "x=1&y=22",
        datetime.date(2020, 12, 31),
        datetime.datetime(2020, 2, 29, 23, 59, 59),
    ),
    (3, None, None, None, None, None, None),
]
t_env.create_temporary_view(
    "t",
    t_env.from_elements(
        rows,
        DataTypes.ROW(
            [
                DataTypes.FIELD("id", DataTypes.INT()),
                DataTypes.FIELD("x", DataTypes.DOUBLE()),
                DataTypes.FIELD("d", DataTypes.DECIMAL(10, 3)),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("q", DataTypes.STRING()),
                DataTypes.FIELD("dt", DataTypes.DATE()),
                DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
            ]
        ),
    ),
)

queries = [
    "SELECT id, FLOOR(x), CEIL(x), FLOOR(d), CEIL(d), FLOOR(id), POWER(x, 2), SQRT(ABS(x)), "
    "LN(ABS(x)), LOG10(ABS(x)), LOG2(ABS(x)), LOG(2, 8), EXP(id), SIGN(x), SIGN(d), "
    "TRUNCATE(x, 1), TRUNCATE(d, 1) FROM t",
    "SELECT id, CONCAT_WS('-', s, q, CAST(NULL AS STRING)), LPAD(q, 8, '*'), RPAD(q, 3, '*'), "
    "LTRIM(s), RTRIM(s), TRIM(s), TRIM(LEADING 'a' FROM q), INITCAP(s), REPEAT(q, 2), "
    "REVERSE(q), LEFT(q, 2), RIGHT(q, 3) FROM t",
    "SELECT id, POSITION('c' IN q), LOCATE('b', q), LOCATE('b', q, 4), INSTR(q, ','), "
    "REGEXP_REPLACE(q, '([a-z])=(\\d+)', '$2:$1'), REGEXP(q, '^x'), MD5(q), SHA256(q), "
    "TO_BASE64(q), FROM_BASE64(TO_BASE64(q)), ASCII(q), CHR(id + 64) FROM t",
    "SELECT id, OVERLAY(q PLACING 'ZZ' FROM 2 FOR 1), "
    "NULLIF(id, 2), GREATEST(id, 2), LEAST(x, 0.5), IS_DIGIT(CAST(id AS STRING)), "
    "IS_ALPHA(q), SHA2(q, 224) FROM t",
    "SELECT id, TO_DATE('2021-07-01'), TO_DATE('20210704', 'yyyyMMdd'), DAYOFWEEK(dt), "
    "DAYOFYEAR(dt), WEEK(dt), QUARTER(dt), EXTRACT(YEAR FROM dt), EXTRACT(MONTH FROM ts), "
    "EXTRACT(HOUR FROM ts), FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(dt TO MONTH), "
    "FROM_UNIXTIME(id * 86400) FROM t",
    "SELECT id, dt FROM t WHERE dt = '2021-07-01'",
]
for query in queries:
    t_env.execute_sql(query).print()

t = t_env.from_path("t")
t.select(
    col("id"),
    col("x").floor(),
    col("x").ceil(),
    col("x").abs.sqrt,
    col("x").abs.ln,
    col("x").abs.log10,
    col("x").abs.log2,
    col("x").abs.log(2),
    col("x").sign,
    col("x").truncate(1),
    col("x").round(1),
).execute().print()
t.select(
    col("id"),
    col("s").trim(),
    col("s").trim_leading(),
    col("s").trim_trailing(),
    col("q").ltrim("a"),
    col("q").rtrim("c"),
    col("s").init_cap,
    col("q").repeat(2),
    col("q").reverse,
    col("q").left(2),
    col("q").right(2),
    col("q").lpad(7, "#"),
    col("q").rpad(7, "#"),
).execute().print()
t.select(
    col("id"),
    lit("b").position(col("q")),
    col("q").locate("b"),
    col("q").instr(","),
    col("q").regexp_replace("[0-9]", "N"),
    col("q").regexp("y"),
    col("q").md5,
    col("q").sha1,
    col("q").to_base64,
    col("q").starts_with("x"),
    col("q").ends_with("c"),
    col("q").overlay("!", 1, 2),
).execute().print()
t.select(
    col("id"),
    lit("2021-07-01").to_date,
    lit("2021-07-01 10:00:00").to_timestamp,
    col("ts").floor(TimeIntervalUnit.HOUR),
    col("ts").ceil(TimeIntervalUnit.MINUTE),
    col("dt").extract(TimeIntervalUnit.YEAR),
    col("q").replace("a", "A"),
    col("q").split_index(",", 1),
    col("q").regexp_extract("([a-z])=(\\d+)", 2),
    col("q").substr(2, 2),
).execute().print()
t.where(col("dt") == lit("2021-07-01").to_date).select(col("id")).execute().print()
