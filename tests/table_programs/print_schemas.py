"""print_schema() as Flink prints a declared table: computed columns with their expressions
in Flink's SQL text, *PROCTIME* and *ROWTIME* markers, the WATERMARK FOR line and the
primary key; and a query's time attributes; the types of COALESCE and CASE."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.execute_sql("""
CREATE TABLE t (
  a STRING, b INT, c BIGINT, d DOUBLE, s VARCHAR(10),
  u AS UPPER(a),
  x AS b * 2 + 1,
  y AS CAST(b AS BIGINT),
  z AS TO_TIMESTAMP(a),
  f AS DATE_FORMAT(TO_TIMESTAMP(a), 'yyyy'),
  g AS COALESCE(a, 'n'),
  h AS CASE WHEN b > 1 THEN 'big' ELSE 'small' END,
  i AS CONCAT(a, '-', s),
  j AS a || s,
  k AS TO_TIMESTAMP_LTZ(c, 3),
  p AS PROCTIME(),
  m AS MOD(b, 3),
  n AS CHAR_LENGTH(a),
  o AS JSON_VALUE(a, '$.x'),
  q AS b IS NULL,
  r AS SUBSTRING(a, 2, 3),
  ts AS TO_TIMESTAMP(a),
  WATERMARK FOR ts AS ts - INTERVAL '5' MINUTE
) WITH ('connector' = 'datagen')
""")
t_env.from_path("t").print_schema()
t_env.execute_sql(
    "CREATE TABLE t2 (ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')"
)
t_env.from_path("t2").print_schema()
t_env.execute_sql(
    "CREATE TABLE t3 (ts TIMESTAMP(3), WATERMARK FOR ts AS "
    "ts - INTERVAL '0.5' SECOND) WITH ('connector' = 'datagen')"
)
t_env.from_path("t3").print_schema()
t_env.execute_sql(
    "CREATE TABLE t4 (id INT, ts TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED, "
    "WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH ('connector' = 'datagen')"
)
t_env.from_path("t4").print_schema()
t_env.sql_query("SELECT a, p, ts FROM t").print_schema()
