"""TIMESTAMPDIFF and TIMESTAMPADD in every unit, forwards and backwards, across month
ends and leap days."""

import datetime

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
stamp = datetime.datetime
t_env.create_temporary_view(
    "pairs",
    t_env.from_elements(
        [
            (stamp(2020, 1, 31, 10, 0), stamp(2020, 2, 29, 9, 59, 59)),
            (stamp(2020, 2, 29, 12, 0), stamp(2021, 2, 28, 12, 0)),
            (stamp(2021, 3, 1, 0, 0, 0, 500000), stamp(2020, 12, 31, 23, 59)),
            (stamp(2020, 5, 15, 8, 30), None),
        ],
        DataTypes.ROW(
            [
                DataTypes.FIELD("a", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("b", DataTypes.TIMESTAMP(3)),
            ]
        ),
    ),
)
t_env.execute_sql("""
    SELECT TIMESTAMPDIFF(SECOND, a, b) AS s, TIMESTAMPDIFF(MINUTE, a, b) AS mi,
           TIMESTAMPDIFF(HOUR, a, b) AS h, TIMESTAMPDIFF(DAY, a, b) AS d,
           TIMESTAMPDIFF(WEEK, a, b) AS w, TIMESTAMPDIFF(MONTH, a, b) AS mo,
           TIMESTAMPDIFF(QUARTER, a, b) AS q, TIMESTAMPDIFF(YEAR, a, b) AS y
    FROM pairs
""").print()
t_env.execute_sql("""
    SELECT TIMESTAMPADD(SECOND, 90, a) AS s, TIMESTAMPADD(HOUR, -3, a) AS h,
           TIMESTAMPADD(DAY, 30, a) AS d, TIMESTAMPADD(MONTH, 1, a) AS mo,
           TIMESTAMPADD(YEAR, 1, a) AS y, TIMESTAMPADD(QUARTER, -1, a) AS q
    FROM pairs
""").print()
