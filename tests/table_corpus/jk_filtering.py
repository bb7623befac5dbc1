"""Distinct daily sales (price * quantity) of a product-sales table filtered by amount and
by date, in the Table API and in SQL (a WITH clause), in batch mode.

Source: https://github.com/jaehyeon-kim/flink-demos
  file pyflink-udemy/s4_02_filtering.py (commit 4c75761b2a1f5502923c613af798b0b5e0ef921d);
  data: the 18 product sales listed in the repository's pyflink-udemy/notes.sh (the
  csv-input directory the program reads is not in the repository).
  Exercises: a batch TableEnvironment; a csv table with STRING, INT, DOUBLE and DATE
  columns; Table API select with an aliased DOUBLE * INT product, distinct(), where() on the
  alias after distinct, and_(...) of two conditions, lit("2021-07-01").to_date compared
  with a DATE column; SQL WITH distinct_sales AS (SELECT DISTINCT ...) SELECT * ... WHERE,
  a DATE column compared with a string literal ('2021-07-01'); DOUBLE products such as
  3.99 * 22 printed as Java prints doubles (87.78, 115.71000000000001); execute().print().

Adapted for weir's test corpus (the Table API calls and SQL text are verbatim):
- `CsvTableSource("./csv-input", field_names, field_types, ignore_first_line=True)` +
  `register_table_source("product_locale_sales", source)` (both removed from PyFlink 2.x)
  become a CREATE TABLE statement of a filesystem csv table with the same name, columns
  and types over data/jk_product_sales.csv (no header line: the filesystem csv format has
  no option to skip one);
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import EnvironmentSettings, TableEnvironment, DataTypes
from weir.table.expressions import col, lit, and_

tbl_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
tbl_env.get_config().set("parallelism.default", "1")

tbl_env.execute_sql(f"""
    CREATE TABLE product_locale_sales (
        seller_id STRING,
        product STRING,
        quantity INT,
        product_price DOUBLE,
        sales_date DATE
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jk_product_sales.csv',
        'format' = 'csv'
    )
""")
tbl = tbl_env.from_path("product_locale_sales")

high_sales = (
    tbl.select(
        col("sales_date"),
        col("seller_id"),
        col("product"),
        (col("product_price") * col("quantity")).alias("sales"),
    )
    .distinct()
    .where(col("sales") >= 80)
)
print("\nhigh_sales data")
high_sales.execute().print()

high_sales2 = tbl_env.sql_query(
    """
    WITH distinct_sales AS (
        SELECT DISTINCT
            sales_date, seller_id, product, product_price * quantity AS sales
        FROM product_locale_sales
    )
    SELECT *
    FROM distinct_sales
    WHERE sales >= 80
    """
)
print("\nhigh_sales2 data")
high_sales2.execute().print()

july1_high_sales = (
    tbl.select(
        col("sales_date"),
        col("seller_id"),
        col("product"),
        (col("product_price") * col("quantity")).alias("sales"),
    )
    .distinct()
    .where(and_(col("sales") >= 80, col("sales_date") == lit("2021-07-01").to_date))
)
print("\njuly1_high_sales data")
july1_high_sales.execute().print()

july1_high_sales2 = tbl_env.sql_query(
    """
    WITH distinct_sales AS (
        SELECT DISTINCT
            sales_date, seller_id, product, product_price * quantity AS sales
        FROM product_locale_sales
    )
    SELECT *
    FROM distinct_sales
    WHERE sales >= 80 and sales_date = '2021-07-01'    
    """
)
print("\njuly1_high_sales2 data")
july1_high_sales2.execute().print()
