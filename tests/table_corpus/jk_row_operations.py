"""Summary statistics of each seller's four quarterly sales by a scalar UDF that takes the
whole row and returns a ROW, applied with Table.map, in batch mode.

Source: https://github.com/jaehyeon-kim/flink-demos
  file pyflink-udemy/s4_13_row_operations.py (commit
  5a4b426088de1a621c0edd58882b07b677a9b06f); data: the repository's
  pyflink-udemy/quarterly-sales-input/quarterly_sales.csv.
  Exercises: a batch TableEnvironment; print_schema() of a csv table and of a mapped table;
  @udf(result_type=DataTypes.ROW([DataTypes.FIELD(...), ...])) whose argument is the input
  Row, unpacked into five names, returning Row(...) with a Python int (a sum), and doubles
  from round(statistics.mean(...), 2) and round(statistics.stdev(...), 2); Table.map(udf)
  (the row's fields become columns) then alias() with four new names; execute().print() of
  INT and DOUBLE columns.

Adapted for weir's test corpus (the function and the Table API calls are verbatim):
- `CsvTableSource("./quarterly-sales-input", field_names, field_types,
  ignore_first_line=True)` + `register_table_source("quarterly_sales", source)` (both
  removed from PyFlink 2.x) become a CREATE TABLE statement of a filesystem csv table with
  the same name, columns and types over data/jk_quarterly_sales.csv (the repository's file
  without its header line: the filesystem csv format has no option to skip one);
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from statistics import stdev, mean

from weir.common import Row
from weir.table import EnvironmentSettings, TableEnvironment, DataTypes
from weir.table.udf import udf

tbl_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
tbl_env.get_config().set("parallelism.default", "1")

tbl_env.execute_sql(f"""
    CREATE TABLE quarterly_sales (
        seller_id STRING,
        q1 INT,
        q2 INT,
        q3 INT,
        q4 INT
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jk_quarterly_sales.csv',
        'format' = 'csv'
    )
""")

tbl = tbl_env.from_path("quarterly_sales")
print("\nQuarterly Sales Schema")
tbl.print_schema()

print("\nQuarterly Sales Data")
tbl.execute().print()


@udf(
    result_type=DataTypes.ROW(
        [
            DataTypes.FIELD("seller_id", DataTypes.STRING()),
            DataTypes.FIELD("sales_total", DataTypes.INT()),
            DataTypes.FIELD("qtr_avg", DataTypes.DOUBLE()),
            DataTypes.FIELD("qtr_stdev", DataTypes.DOUBLE()),
        ]
    )
)
def sales_summary_stats(seller_sales: Row) -> Row:
    seller_id, q1, q2, q3, q4 = seller_sales
    sales = (q1, q2, q3, q4)
    total_sales = sum(sales)
    qtr_avg = round(mean(sales), 2)
    qtr_stdev = round(stdev(sales), 2)
    return Row(seller_id, total_sales, qtr_avg, qtr_stdev)


sales_stats = tbl.map(sales_summary_stats).alias(
    "seller_id", "total_sales", "quarterly_avg", "quarterly_stdev"
)

print("\nSales Summary Stats schema")
sales_stats.print_schema()

print("\nSales Summary Stats data")
sales_stats.execute().print()
