"""Inner, left outer and right outer joins with the Table API in batch mode over csv files.

Source: https://github.com/rohan6471/pyflink-table
  file joins.py (commit 047234d460f755f6e4573d6216f5a126f171b7ea); data data/orders.csv and data/customer.csv.
  Exercises: `from pyflink.table import *`, filesystem csv sources with a backquoted table name
  (`Order`), from_path, join(right).where(left.a == right.b), left_outer_join and
  right_outer_join with a join predicate, select of columns of both sides (nulls from the
  outer side), three execute_insert(...).wait() jobs into one sink.

Adapted for weir's test corpus (the Table API calls are verbatim):
- BatchTableEnvironment.create(environment_settings=EnvironmentSettings.new_instance()
  .in_batch_mode().use_blink_planner().build()) (gone from PyFlink 2.x) becomes
  TableEnvironment.create(environment_settings=EnvironmentSettings.new_instance()
  .in_batch_mode().build());
- the source paths are replaced by data/rp_orders.csv and data/rp_customer.csv (the
  repository's files, then orders of customers 3 (a second order), 27 (no such customer) and
  13 (two customers have id 13), and customers 13 again and 30 (no orders));
- the filesystem csv sink `Result` (path output_rohan/joins) becomes a print-connector sink
  with the same columns;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import *
from weir.table.expressions import col

# environment configuration
t_env = TableEnvironment.create(
        environment_settings=EnvironmentSettings.new_instance().in_batch_mode().build())
 
# register Orders table and Result table sink in table environment
source_data_path1 = f"{DATA}/rp_orders.csv"
source_data_path2 = f"{DATA}/rp_customer.csv"
result_data_path = "output_rohan/joins"
source_ddl1 = f"""
        create table `Order`(
            CustomerID BIGINT,
            OrderID BIGINT
            ) with (
            'connector' = 'filesystem',
            'format' = 'csv',
            'path' = '{source_data_path1}'
        )
        """
source_ddl2 = f"""
        create table `Customer`(
            CustID BIGINT,
            CustomerName VARCHAR,
            Country VARCHAR
            ) with (
            'connector' = 'filesystem',
            'format' = 'csv',
            'path' = '{source_data_path2}'
        )
        """
t_env.execute_sql(source_ddl1)
t_env.execute_sql(source_ddl2)

sink_ddl = f"""
    create table `Result`(
        OrderID BIGINT,
        CustomerName VARCHAR,
        Country VARCHAR        
    ) with (
        'connector' = 'print'
    )
    """
t_env.execute_sql(sink_ddl)

left = t_env.from_path("Order")
right = t_env.from_path("Customer")
left.join(right).where(left.CustomerID == right.CustID).select(left.OrderID , right.CustomerName, right.Country).execute_insert("Result").wait()
left_outer_result = left.left_outer_join(right, left.CustomerID == right.CustID).select(left.OrderID, right.CustomerName, right.Country)
right_outer_result = left.right_outer_join(right, left.CustomerID == right.CustID).select(left.OrderID, right.CustomerName, right.Country)
left_outer_result.execute_insert("Result").wait()
right_outer_result.execute_insert("Result").wait()
