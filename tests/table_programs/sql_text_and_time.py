"""SQL's text and time functions as real programs call them: TO_TIMESTAMP with and
without a Java pattern (NULL where the text does not match), REPLACE, SUBSTRING."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.sql_query(
    "SELECT TO_TIMESTAMP('2024-01-02 03:04:05') AS a, "
    "TO_TIMESTAMP('02/01/2024 03:04', 'dd/MM/yyyy HH:mm') AS b, "
    "TO_TIMESTAMP('2024-01-02T03:04:05Z', 'yyyy-MM-dd''T''HH:mm:ss''Z''') AS c, "
    "TO_TIMESTAMP('x', 'yyyy') AS d, REPLACE('abcb', 'b', 'X') AS e, "
    "SUBSTRING('hello', 2, 3) AS f, SUBSTRING('hello', 3) AS g"
).execute().print()
