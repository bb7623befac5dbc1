"""A Python scalar UDF rewriting a JSON string, called with attribute-style column access
(table.id, table.data), and a statement set of two inserts with like('p%'), both into print
sinks declared two ways.

Source: https://github.com/sparsh-ai/recohut
  files 06-stream-data-processing/flink/src/24_udf.py and
  06-stream-data-processing/flink/src/11_multi_sink.py (commit
  d1720bc3992798f6f60145d9b24a84af158565b6), one after the other in one script.
  Exercises: TableEnvironment.create(EnvironmentSettings.in_streaming_mode()),
  from_elements(elements=..., schema=[names]), a print sink from TableDescriptor with a
  BIGINT id receiving a BIGINT column, @udf(result_type=DataTypes.STRING()) doing
  json.loads/json.dumps, table.select(table.id, update_score(table.data)) (an unnamed UDF
  column), execute_insert(...).wait(); then two from_elements tables, two print sinks in
  DDL, create_statement_set() with add_insert(name, t1.where(t1.lang.like("p%"))) and
  add_insert(name, t2), statement_set.execute().wait().

Adapted for weir's test corpus (each file's code is verbatim):
- the two files are concatenated (the second's environment is a second TableEnvironment, as
  when they run one after the other);
- pyflink is replaced by weir in imports.
"""
import json 

from weir.table import (
  EnvironmentSettings,
  TableEnvironment,
  DataTypes,
  TableDescriptor,
  Schema
)
from weir.table.udf import udf 


t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())

table = t_env.from_elements(
  elements = [
    (1, '{"name": "Spark", "score": 5}'),
    (2, '{"name": "Airflow", "score": 7}'),
    (3, '{"name": "Kafka", "score": 9}'),
    (4, '{"name": "Flink", "score": 8}'),
  ],
  schema = ['id', 'data'])

t_env.create_temporary_table(
  "sink",
  TableDescriptor.for_connector("print")
                 .schema(Schema.new_builder()
                    .column("id", DataTypes.BIGINT())
                    .column("data", DataTypes.STRING())
                    .build())
                 .build())

@udf(result_type=DataTypes.STRING())
def update_score(data):
  json_data = json.loads(data)
  json_data["score"] += 1
  return json.dumps(json_data)

table = table.select(table.id, update_score(table.data))
table.execute_insert("sink").wait()


# ---- 11_multi_sink.py ----
from weir.table import EnvironmentSettings, TableEnvironment 

env_settings = EnvironmentSettings.in_streaming_mode()
t_env = TableEnvironment.create(env_settings)

col_names = ["id", "lang"]
data = [
  (1, "php"),
  (2, "python"),
  (3, "c++"),
  (4, "java")
]

t1 = t_env.from_elements(data, col_names)
t2 = t_env.from_elements(data, col_names)
t_env.execute_sql("""
  CREATE TABLE print_sink1 (
    id BIGINT,
    lang VARCHAR
  ) WITH (
    'connector' = 'print'
  )
""")
t_env.execute_sql("""
  CREATE TABLE print_sink2 (
    id BIGINT,
    lang VARCHAR
  ) WITH (
    'connector' = 'print'
  )
""")

statement_set = t_env.create_statement_set()
statement_set.add_insert("print_sink1", t1.where(t1.lang.like("p%")))
statement_set.add_insert("print_sink2", t2)

statement_set.execute().wait()
# print(statement_set.explain())
