"""Total spend per user: a batch join of a users table and a transactions table, grouped
by user, SUM of a DECIMAL(12,2) column, ordered by the total descending, INSERTed into a
sink.

Source: https://github.com/AjaySingh136/LEARN-Pyflink
  file pyflink_jobs/05_jdbc_join_mysql_postgres.py (commit
  667472db9861b0ea286a229bf8f6d6e4749188f1); data: the seed rows of the repository's
  db/mysql/init.sql (users) and db/postgres/init.sql (transactions).
  Exercises: a batch TableEnvironment, get_config().set("pipeline.name", ...), three
  CREATE TABLE statements, execute_sql("INSERT INTO ... SELECT u.id AS user_id, u.name,
  SUM(t.amount) AS total FROM users_mysql u JOIN transactions_pg t ON u.id = t.user_id
  GROUP BY u.id, u.name ORDER BY total DESC").wait(): a join, a group aggregation of a
  DECIMAL(12,2) into a DECIMAL(12,2) column, a batch sort inside an INSERT.

Adapted for weir's test corpus (the SQL text is verbatim but for the connector options):
- the two JDBC tables (MySQL users, Postgres transactions) become filesystem csv tables
  with the same columns over data/aj_users.csv (Alice, Bob, Charlie) and
  data/aj_transactions.csv (the four transactions of the Postgres seed; their created_at,
  `DEFAULT now()` there, is a fixed time here); the DDL strings become f-strings for that;
- the filesystem csv sink (file:///data/out/jdbc_join) becomes a print-connector sink with
  the same columns;
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import EnvironmentSettings, TableEnvironment

def main():
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("pipeline.name", "05 - JDBC Join (MySQL + Postgres)")
    t_env.get_config().set("parallelism.default", "1")

    # MySQL users
    t_env.execute_sql(f"""
        CREATE TABLE users_mysql (
            id INT,
            name STRING
        ) WITH (
            'connector' = 'filesystem',
            'path' = '{DATA}/aj_users.csv',
            'format' = 'csv'
        )
    """)

    # Postgres transactions
    t_env.execute_sql(f"""
        CREATE TABLE transactions_pg (
            txn_id INT,
            user_id INT,
            amount DECIMAL(12,2),
            created_at TIMESTAMP(3)
        ) WITH (
            'connector' = 'filesystem',
            'path' = '{DATA}/aj_transactions.csv',
            'format' = 'csv'
        )
    """)

    # Filesystem sink for join results
    t_env.execute_sql("""
        CREATE TABLE user_spend_sink (
            user_id INT,
            name STRING,
            total DECIMAL(12,2)
        ) WITH (
            'connector' = 'print'
        )
    """)

    # Join and aggregate
    t_env.execute_sql("""
        INSERT INTO user_spend_sink
        SELECT u.id AS user_id, u.name, SUM(t.amount) AS total
        FROM users_mysql u
        JOIN transactions_pg t
          ON u.id = t.user_id
        GROUP BY u.id, u.name
        ORDER BY total DESC
    """).wait()


if __name__ == "__main__":
    main()
