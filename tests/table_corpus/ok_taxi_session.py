"""Trips per pick-up/drop-off pair per event-time SESSION window TVF (5-minute gap), grouped
by window_start only (not window_end), into an upserting print sink, with computed columns
CONCAT(CAST(.. AS VARCHAR), '-', ..) and TO_TIMESTAMP(str, 'yyyy-MM-dd HH:mm:ss').

Source: https://github.com/OnurKerimoglu/nytaxi-pyflink
  file src/session_job.py (commit 297ee8ccbac616872152fb731e0a67cb0c43237e).
  Exercises: StreamTableEnvironment.create(env, environment_settings=...) with
  enable_checkpointing and set_parallelism(3), a json source whose time attribute is a computed
  column TO_TIMESTAMP(lpep_dropoff_datetime, 'yyyy-MM-dd HH:mm:ss') with
  WATERMARK ... - INTERVAL '5' SECOND and a computed key CONCAT(cast(PULocationID AS VARCHAR),
  '-', cast(DOLocationID AS VARCHAR)), the window TVF TABLE(SESSION(TABLE t,
  DESCRIPTOR(dropoff_timestamp), INTERVAL '5' MINUTE)) with GROUP BY window_start, key (no
  window_end: a regular aggregation over the TVF's rows) and a trailing ';', a sink with a
  PRIMARY KEY NOT ENFORCED, an unused WatermarkStrategy with a lambda timestamp assigner, a
  try/except printing the failure. The file's unused log_aggregation_tumble is kept (the
  corpus runs it from ok_taxi_tumble.py, taken from src/tumble_job.py).

Adapted for weir's test corpus (the functions and SQL are verbatim but for the connector
options):
- the Kafka source (json) becomes a filesystem json source over data/ok_green_trips.json with
  the same columns: 20 green-taxi trips over 35 minutes of drop-off time, 4 location pairs,
  some out of order by up to 3 s (within the 5 s watermark delay); 'connector', 'path' and
  'format' replace the Kafka options, and the source DDL string gains a {DATA} placeholder;
- the JDBC (PostgreSQL) sinks become print-connector sinks with the same columns and
  PRIMARY KEY ... NOT ENFORCED;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

from weir.datastream import StreamExecutionEnvironment
from weir.table import EnvironmentSettings, DataTypes, TableEnvironment, StreamTableEnvironment
from weir.common.watermark_strategy import WatermarkStrategy
from weir.common.time import Duration

def create_taxi_events_aggSessionW_sink(t_env):
    table_name = 'taxi_events_agg_PUDO_5minSessionDOtime'
    sink_ddl = f"""
        CREATE TABLE {table_name} (
            event_hour TIMESTAMP(3),
            PU_DO_ID_pair VARCHAR,
            num_trips BIGINT,
            PRIMARY KEY (event_hour, PU_DO_ID_pair) NOT ENFORCED
        ) WITH (
            'connector' = 'print'
        );
        """
    t_env.execute_sql(sink_ddl)
    return table_name

def create_taxi_events_aggTumbleW_sink(t_env):
    table_name = 'taxi_events_agg_PUDO_5minTumbleDOtime'
    sink_ddl = f"""
        CREATE TABLE {table_name} (
            event_hour TIMESTAMP(3),
            PU_DO_ID_pair VARCHAR,
            num_trips BIGINT,
            PRIMARY KEY (event_hour, PU_DO_ID_pair) NOT ENFORCED
        ) WITH (
            'connector' = 'print'
        );
        """
    t_env.execute_sql(sink_ddl)
    return table_name

def create_events_source_kafka(t_env):
    table_name = "taxi_events_source"
    source_ddl = f"""
        CREATE TABLE {table_name} (
            lpep_pickup_datetime VARCHAR,
            lpep_dropoff_datetime VARCHAR,
            PULocationID INTEGER,
            DOLocationID INTEGER,
            passenger_count INTEGER,
            trip_distance FLOAT,
            tip_amount FLOAT,
            row_index INTEGER,
            PU_DO_ID_pair AS CONCAT(cast(PULocationID AS VARCHAR), '-', cast(DOLocationID AS VARCHAR)),
            dropoff_timestamp AS TO_TIMESTAMP(lpep_dropoff_datetime, 'yyyy-MM-dd HH:mm:ss'),
            WATERMARK for dropoff_timestamp as dropoff_timestamp - INTERVAL '5' SECOND
        ) WITH (
            'connector' = 'filesystem',
            'path' = '{DATA}/ok_green_trips.json',
            'format' = 'json'
        );
        """
    t_env.execute_sql(source_ddl)
    return table_name

def log_aggregation_session():
    # Set up the execution environment
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(10 * 1000)
    env.set_parallelism(3)

    # Set up the table environment
    settings = EnvironmentSettings.new_instance().in_streaming_mode().build()
    t_env = StreamTableEnvironment.create(env, environment_settings=settings)

    watermark_strategy = (
        WatermarkStrategy
        .for_bounded_out_of_orderness(Duration.of_seconds(5))
        .with_timestamp_assigner(
            # This lambda is your timestamp assigner:
            #   event -> The data record
            #   timestamp -> The previously assigned (or default) timestamp
            lambda event, timestamp: event[2]  # We treat the second tuple element as the event-time (ms).
        )
    )
    try:
        # Create Kafka table
        source_table = create_events_source_kafka(t_env)
        aggregated_table = create_taxi_events_aggSessionW_sink(t_env)

        t_env.execute_sql(f"""
        INSERT INTO {aggregated_table}
        SELECT
            window_start AS event_hour,
            PU_DO_ID_pair,
            COUNT(*) AS num_trips
        FROM TABLE(
          SESSION(TABLE {source_table}, DESCRIPTOR(dropoff_timestamp), INTERVAL '5' MINUTE)
          )
        GROUP BY window_start, PU_DO_ID_pair ;
        """).wait()

    except Exception as e:
        print("Writing records from Kafka to JDBC failed:", str(e))

def log_aggregation_tumble():
    # Set up the execution environment
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(10 * 1000)
    env.set_parallelism(3)

    # Set up the table environment
    settings = EnvironmentSettings.new_instance().in_streaming_mode().build()
    t_env = StreamTableEnvironment.create(env, environment_settings=settings)

    watermark_strategy = (
        WatermarkStrategy
        .for_bounded_out_of_orderness(Duration.of_seconds(5))
        .with_timestamp_assigner(
            # This lambda is your timestamp assigner:
            #   event -> The data record
            #   timestamp -> The previously assigned (or default) timestamp
            lambda event, timestamp: event[2]  # We treat the second tuple element as the event-time (ms).
        )
    )
    try:
        # Create Kafka table
        source_table = create_events_source_kafka(t_env)
        aggregated_table = create_taxi_events_aggTumbleW_sink(t_env)

        t_env.execute_sql(f"""
        INSERT INTO {aggregated_table}
        SELECT
            window_start AS event_hour,
            PU_DO_ID_pair,
            COUNT(*) AS num_trips
        FROM TABLE(
          TUMBLE(TABLE {source_table}, DESCRIPTOR(dropoff_timestamp), INTERVAL '5' MINUTE)
          )
        GROUP BY window_start, PU_DO_ID_pair ;
        """).wait()

    except Exception as e:
        print("Writing records from Kafka to JDBC failed:", str(e))


if __name__ == '__main__':
    # log_aggregation_tumble()
    log_aggregation_session()
