"""Joins of a product-sales table and a sellers table, in the Table API and in SQL, in
batch mode: an inner join with distinct, a right outer join keeping the sellers without
sales.

Source: https://github.com/jaehyeon-kim/flink-demos
  file pyflink-udemy/s4_03_joining.py (commit 4c75761b2a1f5502923c613af798b0b5e0ef921d);
  data: the repository's pyflink-udemy/seller-input/sellers.csv and the 18 product sales
  listed in its pyflink-udemy/notes.sh (the csv-input directory the program reads is not in
  the repository).
  Exercises: a batch TableEnvironment; two csv tables with STRING, INT, DOUBLE and DATE
  columns; Table API join(other, col("seller_id") == col("id")) of tables with no common
  column name, select, distinct(); right_outer_join(...).where(col("product").is_null);
  SQL SELECT DISTINCT over a JOIN ... ON with table aliases, RIGHT JOIN ... WHERE product IS
  NULL (without DISTINCT); execute().print() of each.

Adapted for weir's test corpus (the Table API calls and SQL text are verbatim):
- the two `CsvTableSource(path, field_names, field_types, ignore_first_line=True)` +
  `register_table_source(name, source)` pairs (both removed from PyFlink 2.x) become
  CREATE TABLE statements of a filesystem csv table with the same names, columns and types
  over data/jk_product_sales.csv and data/jk_sellers.csv (the files have no header line:
  the filesystem csv format has no option to skip one);
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import EnvironmentSettings, TableEnvironment, DataTypes
from weir.table.expressions import col

tbl_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
tbl_env.get_config().set("parallelism.default", "1")

# sales source
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

# sellers source
tbl_env.execute_sql(f"""
    CREATE TABLE seller_locales (
        id STRING,
        city STRING,
        state STRING
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jk_sellers.csv',
        'format' = 'csv'
    )
""")

sales_tbl = tbl_env.from_path("product_locale_sales")
sellers_tbl = tbl_env.from_path("seller_locales")

seller_products = (
    sales_tbl.join(sellers_tbl, col("seller_id") == col("id"))
    .select(col("city"), col("state"), col("product"), col("product_price"))
    .distinct()
)
print("\nseller_products data")
seller_products.execute().print()

seller_products2 = tbl_env.sql_query(
    """
    SELECT DISTINCT city, state, product, product_price
    FROM product_locale_sales l
    JOIN seller_locales r ON l.seller_id = r.id
    """
)
print("\nseller_products2 data")
seller_products2.execute().print()

sellers_no_sales = (
    sales_tbl.right_outer_join(sellers_tbl, col("seller_id") == col("id"))
    .where(col("product").is_null)
    .select(col("city"), col("state"), col("product"))
    .distinct()
)
print("\nsellers_no_sales data")
sellers_no_sales.execute().print()

sellers_no_sales2 = tbl_env.sql_query(
    """
    SELECT city, state, product
    FROM product_locale_sales l
    RIGHT JOIN seller_locales r ON l.seller_id = r.id
    WHERE product IS NULL
    """
)
print("\nsellers_no_sales2 data")
sellers_no_sales2.execute().print()
