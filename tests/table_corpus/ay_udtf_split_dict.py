#!/usr/bin/env python
# -*- coding:utf-8 _*-
"""A JSON-exploding UDTF (split_dict) with LATERAL TABLE and LEFT JOIN LATERAL ... ON TRUE.

Source: https://github.com/anthony-yau/pyflink_learning
  file 4.udf/udtf_examples1.py (commit 089419d83339abf2510a6ef4f73ab7136fae8887); data 4.udf/data1.csv.
  Exercises: @udtf with input_types and six result types yielding tuples, a UDTF that prints
  (stdout of the UDF) and returns None for an empty input, a filesystem csv source whose
  second column is a quoted multi-line JSON text, a DDL ending in ';', a print-connector sink
  fed by INSERT ... FROM t, LATERAL TABLE(...) AS T(...) (inner: rows without output vanish),
  then the same with LEFT JOIN LATERAL TABLE(...) ON TRUE through execute_sql(query).print()
  (streaming mode: an op column).

Adapted for weir's test corpus (the user's function and SQL are verbatim):
- the source path 'file:///tmp/data1.csv' is replaced by the repository's 4.udf/data1.csv kept
  as data/ay_data1.csv (as in the repository: a UTF-8 byte-order mark first, rows x1, x2 with
  multi-line quoted JSON, x3 with nothing after its comma; then x4 whose list is empty, '[]'), through a DATA directory (TABLE_CORPUS_DATA or tests/table_corpus/data); the DDL
  string becomes an f-string for that;
- pyflink is replaced by weir in imports. The program's own module docstring follows as a
  second string.
"""
"""
@author: Anthony
@license: Apache Licence
@file: udtf_examples2.py
@公众号: 子睿闲谈
@Description: 表值函数（TableFunction）以零个、一个或多个列作为输入参数，可以返回任意数量的行来作为输出，返回类型可以为可迭代子类、迭代器、生成器。
"""

# Happy coding
from weir.table import DataTypes
from weir.table.udf import udtf
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, EnvironmentSettings
import json
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))


# 表值函数
@udtf(input_types=DataTypes.STRING(), result_types=[
    DataTypes.STRING(),
    DataTypes.INT(),
    DataTypes.INT(),
    DataTypes.INT(),
    DataTypes.STRING(),
    DataTypes.STRING()
])
def split_dict(input_map):
    print("input:", input_map)
    if input_map:
        for line in json.loads(input_map):
            yield line['bs3_name'], int(line['bs3_name_id']), int(line['bs1_name_id']), \
                  int(line['bs2_name_id']), line['bs2_name'], line['bs1_name']
    else:
        return None


# 设置流执行环境
env = StreamExecutionEnvironment.get_execution_environment()
env_settings = EnvironmentSettings.new_instance().in_streaming_mode().build()
t_env = StreamTableEnvironment.create(env, environment_settings=env_settings)

# 注册split_dict UDF
t_env.create_temporary_function("split_dict", split_dict)

# 创建输入表
t_env.execute_sql(f"""
    create table input_table(
    id string,
    bs_info string)
    with (
    'connector'='filesystem',
    'path'='{DATA}/ay_data1.csv',
    'format'='csv');
""")

# 创建输出表（这里使用打印输出）
t_env.execute_sql("""
    CREATE TEMPORARY TABLE output_table (
        id string,
        bs3_name STRING,
        bs3_name_id INT,
        bs1_name_id INT,
        bs2_name_id INT,
        bs2_name STRING,
        bs1_name STRING
    ) WITH (
        'connector' = 'print'
    )
""")

# 使用split_dict UDF将输入表中的数据拆分为多行和多列，并将结果插入输出表
# 使用cross join, 如果UDTF输出为空, 将不会显示
t_env.execute_sql("""
    INSERT INTO output_table
    SELECT
        id,
        bs3_name,
        bs3_name_id,
        bs1_name_id,
        bs2_name_id,
        bs2_name,
        bs1_name
    FROM input_table,
    LATERAL TABLE(split_dict(bs_info)) AS T(bs3_name,bs3_name_id,bs1_name_id,bs2_name_id,bs2_name,bs1_name)
""").wait()

# 使用left join, 如果UDTF输出为空，将使用null填充
t_env.execute_sql("""
    SELECT
        id,
        bs3_name,
        bs3_name_id,
        bs1_name_id,
        bs2_name_id,
        bs2_name,
        bs1_name
    FROM input_table LEFT JOIN
    LATERAL TABLE(split_dict(bs_info)) AS T(bs3_name,bs3_name_id,bs1_name_id,bs2_name_id,bs2_name,bs1_name) ON TRUE
""").print()
