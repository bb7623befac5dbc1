"""Windows over a processing-time attribute (PROCTIME()): window table functions, SQL's
group windows and the Table API's, on a bounded file. Rows are windowed by the clock, and
the file ends before any window does, so no window fires (as on Flink: nothing is
emitted at the end of the input for processing time); the results' schemas say which
columns are processing-time attributes. (tests/e2e/test_proctime_windows.py watches such
windows fire while a source lasts.)"""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.expressions import col, lit
from weir.table.window import Session, Slide, Tumble

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "prices.csv"), "w") as out:
    out.write("a,1\nb,5\na,3\na,2\nb,6\n")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE prices (symbol STRING, price BIGINT, pt AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '{directory}/prices.csv', 'format' = 'csv')
""")
for query in (
    """SELECT symbol, window_start, window_end, window_time, COUNT(*) AS n
           FROM TABLE(TUMBLE(TABLE prices, DESCRIPTOR(pt), INTERVAL '1' HOUR))
           GROUP BY symbol, window_start, window_end, window_time""",
    """SELECT symbol, window_end, SUM(price) AS total
           FROM TABLE(HOP(TABLE prices, DESCRIPTOR(pt), INTERVAL '30' MINUTE,
                          INTERVAL '1' HOUR))
           GROUP BY symbol, window_start, window_end""",
    """SELECT symbol, MAX(price) AS top
           FROM TABLE(CUMULATE(TABLE prices, DESCRIPTOR(pt), INTERVAL '30' MINUTE,
                               INTERVAL '1' HOUR))
           GROUP BY symbol, window_start, window_end""",
    """SELECT symbol, window_start, window_end, window_time, COUNT(*) AS n
           FROM TABLE(SESSION(TABLE prices PARTITION BY symbol, DESCRIPTOR(pt),
                              INTERVAL '1' HOUR))
           GROUP BY symbol, window_start, window_end, window_time""",
    """SELECT symbol, TUMBLE_START(pt, INTERVAL '1' HOUR),
                  TUMBLE_PROCTIME(pt, INTERVAL '1' HOUR), COUNT(*)
           FROM prices GROUP BY symbol, TUMBLE(pt, INTERVAL '1' HOUR)""",
    """SELECT symbol, HOP_END(pt, INTERVAL '30' MINUTE, INTERVAL '1' HOUR), COUNT(*)
           FROM prices GROUP BY symbol, HOP(pt, INTERVAL '30' MINUTE, INTERVAL '1' HOUR)""",
    """SELECT symbol, SESSION_START(pt, INTERVAL '1' HOUR), SUM(price)
           FROM prices GROUP BY symbol, SESSION(pt, INTERVAL '1' HOUR)""",
):
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()

prices = t_env.from_path("prices")
for window in (
    Tumble.over(lit(1).hours),
    Slide.over(lit(1).hours).every(lit(30).minutes),
    Session.with_gap(lit(1).hours),
):
    result = (
        prices.window(window.on(col("pt")).alias("w"))
        .group_by(col("w"), col("symbol"))
        .select(
            col("symbol"),
            col("w").start,
            col("w").end,
            col("w").proctime,
            col("price").sum,
            col("price").count.alias("n"),
        )
    )
    result.print_schema()
    result.execute().print()
