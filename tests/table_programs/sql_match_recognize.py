"""MATCH_RECOGNIZE (Flink's row pattern recognition, run on weir's CEP): per symbol,
patterns of prices in event time. Variables in strict sequence with greedy and reluctant
quantifiers, DEFINE conditions that navigate the partial match (A.price, LAST/FIRST with
offsets, aggregates over a variable's rows or all rows), MEASURES, each AFTER MATCH SKIP
strategy, WITHIN, a second ORDER BY key for rows of one time, no PARTITION BY, a query
over the matches (a projection and WHERE on the clause's alias), MATCH_ROWTIME() as the
time attribute of a window over the matches, and a subquery as the input. (The rows of
the file are in time order, so none is late.)"""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
PRICES = [
    ("ACME", 12, 1.5),
    ("XYZ", 7, 1.0),
    ("ACME", 17, 2.0),
    ("XYZ", 9, 2.0),
    ("ACME", 19, 1.0),
    ("XYZ", 10, 1.0),
    ("ACME", 21, 3.0),
    ("XYZ", 5, 2.0),
    ("ACME", 25, 2.0),
    ("XYZ", 10, 2.0),
    ("ACME", 18, 1.0),
    ("XYZ", 7, 2.0),
    ("ACME", 15, 1.0),
    ("XYZ", 14, 2.0),
    ("ACME", 14, 2.0),
    ("XYZ", 3, 0.5),
    ("ACME", 24, 2.0),
    ("XYZ", 4, 0.5),
    ("ACME", 25, 2.0),
    ("XYZ", 30, 1.0),
    ("ACME", 19, 1.0),
    ("ACME", 1, 1.0),
    ("ACME", 26, 4.0),
]
with open(os.path.join(directory, "ticker.csv"), "w") as out:
    for second, (symbol, price, tax) in enumerate(PRICES):
        out.write(f"{symbol},{price},{tax},2011-04-01 10:00:{second // 2:02d}\n")
    # (two rows of one symbol at one time: ORDER BY's second key orders them)
    out.write(
        "ACME,40,1.0,2011-04-01 10:00:20\nACME,2,1.0,2011-04-01 10:00:20\n"
        "ACME,30,1.0,2011-04-01 10:00:21\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE Ticker (symbol STRING, price BIGINT, tax DOUBLE, rowtime TIMESTAMP(3),
                         WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/ticker.csv', 'format' = 'csv')
""")

# falling prices, then a rise: navigation, aggregates, MATCH_ROWTIME()
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            START_ROW.rowtime AS start_tstamp,
            LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
            LAST(PRICE_UP.rowtime) AS end_tstamp,
            AVG(PRICE_DOWN.price) AS avg_down,
            SUM(price) AS total,
            COUNT(PRICE_DOWN.price) AS downs,
            FIRST(PRICE_DOWN.price, 1) AS second_down,
            MATCH_ROWTIME() AS match_time
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO LAST PRICE_UP
        PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE
            PRICE_DOWN AS
                (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
                OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
            PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
    ) MR
""").print()

# the skip strategies (the default is TO NEXT ROW)
for after in ("", "AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"):
    t_env.execute_sql(f"""
        SELECT * FROM Ticker MATCH_RECOGNIZE (
            PARTITION BY symbol ORDER BY rowtime
            MEASURES SUM(A.price) AS sum_price, FIRST(rowtime) AS start_time,
                     LAST(rowtime) AS end_time
            ONE ROW PER MATCH {after}
            PATTERN (A+ C)
            DEFINE A AS SUM(A.price) < 30)
    """).print()

# an aggregate in DEFINE; MIN and MAX, of a variable's rows and of all rows
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES FIRST(A.rowtime) AS start_tstamp, LAST(A.rowtime) AS end_tstamp,
                 AVG(A.price) AS avg_price, MIN(A.tax) AS min_tax, MAX(price) AS max_price
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ B)
        DEFINE A AS AVG(A.price) < 15)
""").print()

# greedy and reluctant
for quantifier in ("*", "*?"):
    t_env.execute_sql(f"""
        SELECT * FROM Ticker MATCH_RECOGNIZE (
            PARTITION BY symbol ORDER BY rowtime
            MEASURES C.price AS last_price, COUNT(B.price) AS bs
            AFTER MATCH SKIP PAST LAST ROW
            PATTERN (A B{quantifier} C)
            DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)
    """).print()

# no PARTITION BY; an optional variable that may have no row; the default variable
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        ORDER BY rowtime
        MEASURES A.symbol AS a_symbol, A.price AS a_price, B.price AS b_price,
                 C.symbol AS c_symbol, C.price AS c_price, AVG(tax) AS avg_tax,
                 SUM(B.tax) AS b_tax, COUNT(*) AS n, COUNT(B.price) AS bs,
                 LAST(A.price * A.tax) AS weighted
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B? C)
        DEFINE B AS B.price < 15, C AS LAST(price, 1) < C.price)
""").print()

# WITHIN, and a query over the matches
t_env.execute_sql("""
    SELECT T.symbol, T.drop_time, T.drop_diff
    FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES C.rowtime AS drop_time, A.price - C.price AS drop_diff
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B* C) WITHIN INTERVAL '3' SECOND
        DEFINE B AS B.price > A.price - 5, C AS C.price < A.price - 5
    ) AS T
    WHERE T.drop_diff > 6
""").print()

# counted quantifiers; offsets past a variable's rows are NULL; expressions in MEASURES
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES FIRST(A.price) AS f, LAST(A.price) AS l, COUNT(A.price) AS n,
                 B.price AS b, LAST(A.price, 5) AS a5, FIRST(A.price, 9) AS a9,
                 CAST(MATCH_ROWTIME() AS STRING) AS at_text,
                 CASE WHEN B.price > 8 THEN 'high' ELSE 'low' END AS level,
                 LOWER(A.symbol) AS lower_symbol
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A{2,3} B)
        DEFINE A AS A.price > 8)
""").print()
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES A.price AS a, B.price AS b, COUNT(B.price) AS bs, C.price AS c
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B+? C)
        DEFINE B AS B.price <> 0, C AS C.price > 24)
""").print()
t_env.execute_sql("""
    SELECT * FROM Ticker MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES FIRST(A.price) AS first_a, LAST(A.price) AS last_a, C.price AS c
        PATTERN (A{2} B{1,2}? C)
        DEFINE A AS A.price > 8, C AS C.price > 20)
""").print()

# rows of one time, ordered by the price, descending then ascending
for direction in ("DESC", "ASC"):
    t_env.execute_sql(f"""
        SELECT * FROM Ticker MATCH_RECOGNIZE (
            PARTITION BY symbol ORDER BY rowtime, price {direction}
            MEASURES A.price AS a, B.price AS b
            AFTER MATCH SKIP PAST LAST ROW
            PATTERN (A B)
            DEFINE A AS A.price > 35)
    """).print()

# the matches' time attribute, MATCH_ROWTIME(), in a window over them; a subquery input
t_env.execute_sql("""
    SELECT symbol, TUMBLE_START(match_time, INTERVAL '5' SECOND) AS window_start,
           COUNT(*) AS match_count, SUM(rise) AS rises
    FROM (SELECT * FROM Ticker WHERE price > 2) MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY rowtime
        MEASURES MATCH_ROWTIME() AS match_time, B.price - A.price AS rise
        AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A B)
        DEFINE B AS B.price > A.price)
    GROUP BY symbol, TUMBLE(match_time, INTERVAL '5' SECOND)
""").print()
