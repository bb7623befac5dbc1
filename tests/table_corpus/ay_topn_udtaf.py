#!/usr/bin/env python
# -*- coding:utf-8 _*-
"""Top-N names per sex with a Python TableAggregateFunction (flat_aggregate).

Source: https://github.com/anthony-yau/pyflink_learning
  file 3.windows/rank_example2.py (commit 089419d83339abf2510a6ef4f73ab7136fae8887), with the table environment of
  3.windows/config.py; data shaped as the repository's 3.windows/kafka_producer.py writes it.
  Exercises: a TableAggregateFunction whose accumulator is a Python dict (declared as ROW<MAP,
  INT>), emit_value yielding Rows sorted by count (ties in insertion order), udtaf(instance),
  group_by(col('sex')).flat_aggregate(TopN(col('name'), 10)).select(col('*')) in streaming
  mode (each update retracts the rows emitted before), a json source with
  'json.ignore-parse-errors' (a malformed line) and 'json.fail-on-missing-field' = 'false' (a
  record without sex: the null group), a WATERMARK declared but unused.

Adapted for weir's test corpus (the user's class and Table API calls are verbatim):
- `from config import *` is replaced by config.py's table environment line
  (TableEnvironment.create(EnvironmentSettings.in_streaming_mode())), without its
  pipeline.jars (the Kafka connector jar) and Kafka settings;
- the Kafka source options become a filesystem source over data/ay_user_action.json (the same
  columns, format and json options; 22 user actions over 15 s, 2 edge lines);
- `.execute().print().wait()` loses `.wait()` (print() returns None: the program ended in an
  AttributeError after printing);
- pyflink is replaced by weir in imports. The program's own module docstring follows as a
  second string.
"""
"""
@author: Anthony
@license: Apache Licence
@file: rank_example2.py
@公众号: 子睿闲谈
@Description: 使用自定义表聚合函数实现TopN
"""

# Happy coding
import os
from weir.table import TableEnvironment, EnvironmentSettings, DataTypes, Row
from weir.table.expressions import col
from weir.table.udf import udtaf, TableAggregateFunction
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

# 设置env (config.py)
table_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())


# 自定义聚合函数
class TopN(TableAggregateFunction):
    # 初始化累加器
    def create_accumulator(self):
        return {"names": {}, "top_n": 0}

    # 实现逻辑, row为输入
    def accumulate(self, accumulator, name, count):
        if name in accumulator["names"]:
            accumulator["names"][name] += 1
        else:
            accumulator["names"][name] = 1
        accumulator["top_n"] = count

    # 最终返回结果
    def emit_value(self, accumulator):
        names = accumulator["names"]
        top_n = accumulator["top_n"]

        sorted_names = sorted(names.items(), key=lambda x: x[1], reverse=True)
        top_n_names = sorted_names[:top_n]
        top_n_name_cnt = [{"name": name, "cnt": cnt} for name, cnt in top_n_names]
        for n in top_n_name_cnt:
            yield Row(n['name'], n['cnt'])

    def get_accumulator_type(self):
        return DataTypes.ROW(
            [
                DataTypes.FIELD("names", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT())),
                DataTypes.FIELD("top_n", DataTypes.INT())
            ]
        )

    def get_result_type(self) -> DataTypes.ROW([DataTypes.FIELD("a", DataTypes.BIGINT())]):
        return DataTypes.ROW(
            [
                DataTypes.FIELD("name", DataTypes.STRING()),
                DataTypes.FIELD("cnt", DataTypes.BIGINT())
            ]
        )


TopN = udtaf(TopN())

"""
创建source
使用kafka sql连接器从kafka topic中消费数据
ts为事件事件属性，并且用延迟5s的策略来生成watermark
"""
table_env.execute_sql(
    f"""
    CREATE TABLE source (
        name STRING,
        sex STRING,
        action STRING,
        is_delete BIGINT,
        ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/ay_user_action.json',
        'json.fail-on-missing-field' = 'false',
        'json.ignore-parse-errors' = 'true',
        'format' = 'json'
    )
    """
)

# 使用自定义聚合函数
# 表聚合函数不支持窗口，只支持GroupBy
# https://nightlies.apache.org/flink/flink-docs-release-1.16/zh/docs/dev/python/table/udfs/python_udfs/

# 没有使用窗口时，下面语句可以使用python执行, 使用flink run提交到集群报错：
# Caused by: org.apache.flink.streaming.runtime.tasks.StreamTaskException: \
# Cannot load user class: org.apache.flink.table.runtime.operators.python.\
# aggregate.PythonStreamGroupTableAggregateOperator
# 需要复制opt/flink-python包到lib目录
tab = table_env.from_path("source")
results = tab \
    .group_by(col('sex'))\
    .flat_aggregate(TopN(col('name'), 10))\
    .select(col('*'))\
    .execute().print()
