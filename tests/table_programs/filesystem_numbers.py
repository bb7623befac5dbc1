"""How the filesystem connector's csv and json formats write numbers, text and NULLs
(Java's forms: 1.0E7, a DECIMAL without trailing zeros, 1E+3), from rows of VALUES."""

import glob
import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
columns = "d DECIMAL(20, 3), x DOUBLE, f FLOAT, t TIMESTAMP(3), n BIGINT, s STRING"
directories = {}
for fmt in ("csv", "json"):
    directories[fmt] = tempfile.mkdtemp()
    t_env.execute_sql(
        f"CREATE TABLE out_{fmt} ({columns}) WITH ('connector' = 'filesystem', "
        f"'path' = '{directories[fmt]}', 'format' = '{fmt}')"
    )
rows = """(VALUES
    (CAST(1000.000 AS DECIMAL(20, 3)), CAST(1e7 AS DOUBLE), CAST(0.1 AS FLOAT),
     TIMESTAMP '2026-01-01 08:00:00', CAST(1 AS BIGINT), 'a"b\\c'),
    (CAST(12.500 AS DECIMAL(20, 3)), CAST(0.001 AS DOUBLE), CAST(1e10 AS FLOAT),
     TIMESTAMP '2026-01-01 08:00:00.120', CAST(NULL AS BIGINT), CAST(NULL AS STRING)),
    (CAST(0.001 AS DECIMAL(20, 3)), CAST(0.0001 AS DOUBLE), CAST(3.5 AS FLOAT),
     TIMESTAMP '2026-01-01 08:00:00.001', CAST(2 AS BIGINT), 'x, y'),
    (CAST(10806575.620 AS DECIMAL(20, 3)), CAST(123456789.125 AS DOUBLE),
     CAST(NULL AS FLOAT), TIMESTAMP '2026-01-01 23:59:59.999', CAST(-3 AS BIGINT), ''),
    (CAST(0.000 AS DECIMAL(20, 3)), CAST(9999999 AS DOUBLE), CAST(-2.25 AS FLOAT),
     TIMESTAMP '2026-01-01 00:00:00', CAST(0 AS BIGINT), 'ü'))"""
for fmt in ("csv", "json"):
    t_env.execute_sql(f"INSERT INTO out_{fmt} SELECT * FROM {rows}").wait()
    for path in sorted(glob.glob(os.path.join(directories[fmt], "**"), recursive=True)):
        if os.path.isfile(path) and not os.path.basename(path).startswith((".", "_")):
            with open(path, encoding="utf-8") as written:
                print(written.read(), end="")
