"""Longest run of equal integers: Table -> DataStream (keyed state) -> Table.

Source: https://github.com/ErikRZH/pyflink-python-flink-examples-docker
  file stateful-longest-run/demo_longest_run.py (commit 41aa322be45be9ccfcdd8d4cdafc06f466df694c); data shaped as
  stateful-longest-run/generator/generate_source_data.py writes it.
  Exercises: StreamTableEnvironment over a StreamExecutionEnvironment, configuration through
  get_config().get_configuration().set_string/set_boolean, a json source table,
  t_env.to_data_stream(table), key_by(lambda row: 1).flat_map(FlatMapFunction with
  output_type=Types.ROW([...])), a PICKLED_BYTE_ARRAY ValueState holding a tuple,
  runtime_context.get_state(MapStateDescriptor(...)) (a value state of a dict),
  t_env.from_data_stream(ds).alias("binaryInt") (one name for three columns), execute_insert
  into a three-column sink.

Adapted for weir's test corpus (the user's class and Table API calls are verbatim):
- TimeCharacteristic is dropped from the imports (gone from PyFlink 2.x; unused);
- the Kafka source options ('value.format' = 'json') become a 'filesystem' source over
  data/er_random_binary_msg.json with 'format' = 'json' (the same columns; 40 records of 0/1,
  two per second as the generator writes them, with runs of length 1 to 6);
- the Elasticsearch sink becomes a print-connector sink with the same columns;
- execute_insert("es_sink") gets .wait() (without it the script ends before the job runs);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
################################################################################
#  Licensed to the Apache Software Foundation (ASF) under one
#  or more contributor license agreements.  See the NOTICE file
#  distributed with this work for additional information
#  regarding copyright ownership.  The ASF licenses this file
#  to you under the Apache License, Version 2.0 (the
#  "License"); you may not use this file except in compliance
#  with the License.  You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
#  Unless required by applicable law or agreed to in writing, software
#  distributed under the License is distributed on an "AS IS" BASIS,
#  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#  See the License for the specific language governing permissions and
# limitations under the License.
################################################################################
from weir.common import WatermarkStrategy, Row
from weir.common.typeinfo import Types
from weir.datastream import StreamExecutionEnvironment, FlatMapFunction, RuntimeContext, \
    MapFunction
from weir.datastream.state import ValueStateDescriptor, MapStateDescriptor
from weir.table import StreamTableEnvironment, DataTypes, EnvironmentSettings, Schema


class CountRunLength(FlatMapFunction):
    # Class used for identifying the longest consecutive run of integers in a datastream,
    # a single integer does not constitute a run.

    def __init__(self):
        self.sum = None
        self.max_lengths = None

    def open(self, runtime_context: RuntimeContext):
        # Useful to consult :
        # https://nightlies.apache.org/flink/flink-docs-release-1.13/api/python/_modules/pyflink/datastream/state.html

        # Tuple to store a running tally of how many consecutive values have appeared
        descriptor = ValueStateDescriptor(
            "runInt",  # the state name
            Types.PICKLED_BYTE_ARRAY()  # type information
        )
        self.sum = runtime_context.get_state(descriptor)

        # Dictionary to keep track of the longest runs seen
        descriptor_max = MapStateDescriptor(
            "runLength",  # the state name
            Types.INT(),  # Key type
            Types.INT()  # Value type
        )
        self.max_lengths = runtime_context.get_state(descriptor_max)

    def flat_map(self, value):
        # access the state value
        current_run = self.sum.value()  # Access the value of the state stored in self.sum
        if current_run is None:
            current_run = (-1, 0)  # Entries correspond to (0) previous entry and (1) number of previous entries in run.

        max_lengths = self.max_lengths.value()  # Access the value of the state stored in self.sum
        if max_lengths is None:
            max_lengths = {}

        seen_int = value[1]
        seen_time = value[0]

        # if the current integer and previous integers are different set run length to 1 and update previous integer
        if seen_int != current_run[0]:
            current_run = (seen_int, 1)
            self.sum.update(current_run)
        elif seen_int == current_run[0]: # current integer matches previous integer
            current_run = (seen_int, current_run[1] + 1)
            self.sum.update(current_run)
            if max_lengths.get(seen_int) is None or current_run[1] > max_lengths.get(seen_int): # Longest run seen
                max_lengths[seen_int] = current_run[1] # record new longest run seen in dictionary
                self.max_lengths.update(max_lengths) # Update the dictionary
                yield Row(seen_time, seen_int, max_lengths[seen_int])


def log_processing():
    env = StreamExecutionEnvironment.get_execution_environment()
    t_env = StreamTableEnvironment.create(stream_execution_environment=env)
    t_env.get_config().get_configuration().set_string("pipeline.name",
                                                      "Extended Pipeline: Longest Run of Binary Numbers")
    t_env.get_config().get_configuration().set_boolean("python.fn-execution.memory.managed", True)

    create_kafka_source_ddl = f"""
            CREATE TABLE random_binary_msg (
                createTime VARCHAR,
                binaryInt INT
            ) WITH (
              'connector' = 'filesystem',
              'path' = '{DATA}/er_random_binary_msg.json',
              'format' = 'json'
            )
            """

    create_es_sink_ddl = """
            CREATE TABLE es_sink (
                createTime VARCHAR,
                runInt INT,
                runLength INT
            ) with (
                'connector' = 'print'
            )
    """

    # Sets up Table API calls
    t_env.execute_sql(create_kafka_source_ddl)
    t_env.execute_sql(create_es_sink_ddl)

    # Create Table using the source
    table = t_env.from_path("random_binary_msg")

    # Convert Table to Datastream
    ds = t_env.to_data_stream(table)

    # Use Datastream API stateful function
    ds = ds.key_by(lambda row: 1) \
        .flat_map(CountRunLength(), output_type=Types.ROW([Types.STRING(), Types.INT(), Types.INT()]))
    # Convert Datastream back to table
    table_out = t_env.from_data_stream(ds).alias("binaryInt")
    # Write to sink
    table_out.execute_insert("es_sink").wait()


if __name__ == '__main__':
    log_processing()
