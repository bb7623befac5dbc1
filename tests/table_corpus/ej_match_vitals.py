"""Three MATCH_RECOGNIZE queries over a stream of health readings, each written by INSERT INTO
a sink: runs of at least 5 (3) rows in a row per user that meet a condition, ended by the
first row that does not, one alert row per run with its first and last time, AVG and COUNT.

Source: https://github.com/eljaska/telara
  file stream-processor/flink_job.py (commit 1c7693b17800e538ccab9a5ac0c4a03e00dbdcf4).
  Exercises: TableEnvironment in streaming mode, table.exec.source.idle-timeout, a json
  source with a backquoted column `timestamp`, 'json.ignore-parse-errors', a computed
  rowtime ts AS TO_TIMESTAMP(`timestamp`) with WATERMARK FOR ts AS ts - INTERVAL '5' SECOND;
  three INSERT INTO ... SELECT ... FROM t MATCH_RECOGNIZE (PARTITION BY user_id ORDER BY ts
  MEASURES FIRST(A.ts), LAST(A.ts), AVG(CAST(A.x AS DOUBLE)) / AVG(A.x), COUNT(A.event_id)
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A{5,}? B) / (A{3,}? B) DEFINE
  A AS ... AND ..., B AS ... OR ...) AS T, and in the outer SELECT: CAST(UUID() AS STRING),
  string literals (one with a non-ASCII character), CASE WHEN over the measures,
  CONCAT with CAST(CAST(double AS INT) AS STRING) and CAST(ROUND(double, 1) AS STRING).

Adapted for weir's test corpus (the functions and SQL text are verbatim but for the
connector options):
- the Kafka source biometrics_raw (json) becomes a filesystem json source over
  data/ej_biometrics_raw.json with the same columns (its DDL string becomes an f-string for
  the path): 60 readings of 3 users, one every 5 s per user over 100 s, in event-time
  order, with the extra fields the repository's generator sends (device_sources, posture)
  and one reading whose heart_rate is "n/a" ('json.ignore-parse-errors' is kept: PyFlink 2.3
  reads that heart_rate as NULL and keeps the row, which ends user_002's run of rows);
  its `timestamp` text is in TO_TIMESTAMP's default format 'yyyy-MM-dd HH:mm:ss';
- the Kafka sink biometrics_alerts (json) becomes a print-connector sink with the same
  columns;
- the pipeline.jars line (the Kafka connector jar) is replaced by setting
  parallelism.default to 1 (the repository's docker-compose.yml runs Flink with 1);
- each of the three INSERTs' execute_sql(...) gets .wait(), and the endless keep-alive
  loop at the end of main() (`while True: time.sleep(60); print(...)`) is removed, so the
  program ends when its three bounded jobs have;
- pyflink is replaced by weir in imports.
Note: alert_id is CAST(UUID() AS STRING), a random UUID per row, in PyFlink's output too.
The program's own module docstring follows as a string.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

"""
Telara PyFlink Stream Processor
Detects health anomalies using MATCH_RECOGNIZE pattern matching.
"""

import os
from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.expressions import col


def create_kafka_source_ddl() -> str:
    """Create DDL for the biometrics-raw Kafka source table."""
    return f"""
    CREATE TABLE biometrics_raw (
        event_id STRING,
        `timestamp` STRING,
        user_id STRING,
        heart_rate INT,
        hrv_ms INT,
        activity_level INT,
        steps_per_minute INT,
        skin_temp_c DOUBLE,
        spo2_percent INT,
        respiratory_rate INT,
        ts AS TO_TIMESTAMP(`timestamp`),
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/ej_biometrics_raw.json',
        'format' = 'json',
        'json.ignore-parse-errors' = 'true'
    )
    """


def create_kafka_sink_ddl() -> str:
    """Create DDL for the biometrics-alerts Kafka sink table."""
    return """
    CREATE TABLE biometrics_alerts (
        alert_id STRING,
        alert_type STRING,
        user_id STRING,
        severity STRING,
        start_time TIMESTAMP(3),
        end_time TIMESTAMP(3),
        avg_heart_rate DOUBLE,
        event_count BIGINT,
        description STRING
    ) WITH (
        'connector' = 'print'
    )
    """


def create_tachycardia_detection_query() -> str:
    """
    MATCH_RECOGNIZE query to detect Tachycardia at Rest.
    
    Pattern: 5+ consecutive events where:
    - heart_rate > 100 bpm
    - activity_level < 10 (sedentary)
    - steps_per_minute < 5 (at rest)
    
    Note: Pattern uses reluctant quantifier A{5,}? and ends with B to avoid
    the "greedy quantifier as last element" limitation in Flink.
    """
    return """
    INSERT INTO biometrics_alerts
    SELECT 
        CAST(UUID() AS STRING) as alert_id,
        'TACHYCARDIA_AT_REST' as alert_type,
        user_id,
        CASE 
            WHEN avg_hr > 130 THEN 'CRITICAL'
            WHEN avg_hr > 115 THEN 'HIGH'
            ELSE 'MEDIUM'
        END as severity,
        start_ts as start_time,
        end_ts as end_time,
        avg_hr as avg_heart_rate,
        match_count as event_count,
        CONCAT('Sustained elevated HR (', CAST(CAST(avg_hr AS INT) AS STRING), ' bpm avg) detected while at rest for ', CAST(match_count AS STRING), ' consecutive readings') as description
    FROM biometrics_raw
    MATCH_RECOGNIZE (
        PARTITION BY user_id
        ORDER BY ts
        MEASURES
            FIRST(A.ts) AS start_ts,
            LAST(A.ts) AS end_ts,
            AVG(CAST(A.heart_rate AS DOUBLE)) AS avg_hr,
            COUNT(A.event_id) AS match_count
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A{5,}? B)
        DEFINE
            A AS A.heart_rate > 100 AND A.activity_level < 10 AND A.steps_per_minute < 5,
            B AS B.heart_rate <= 100 OR B.activity_level >= 10 OR B.steps_per_minute >= 5
    ) AS T
    """


def create_hypoxia_detection_query() -> str:
    """
    Additional pattern: Low SpO2 detection (potential hypoxia).
    
    Pattern: 3+ consecutive events where SpO2 < 94%
    """
    return """
    INSERT INTO biometrics_alerts
    SELECT 
        CAST(UUID() AS STRING) as alert_id,
        'LOW_SPO2_HYPOXIA' as alert_type,
        user_id,
        CASE 
            WHEN avg_spo2 < 90 THEN 'CRITICAL'
            WHEN avg_spo2 < 92 THEN 'HIGH'
            ELSE 'MEDIUM'
        END as severity,
        start_ts as start_time,
        end_ts as end_time,
        avg_spo2 as avg_heart_rate,
        match_count as event_count,
        CONCAT('Low blood oxygen (', CAST(CAST(avg_spo2 AS INT) AS STRING), '% avg SpO2) detected for ', CAST(match_count AS STRING), ' consecutive readings') as description
    FROM biometrics_raw
    MATCH_RECOGNIZE (
        PARTITION BY user_id
        ORDER BY ts
        MEASURES
            FIRST(A.ts) AS start_ts,
            LAST(A.ts) AS end_ts,
            AVG(CAST(A.spo2_percent AS DOUBLE)) AS avg_spo2,
            COUNT(A.event_id) AS match_count
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A{3,}? B)
        DEFINE
            A AS A.spo2_percent < 94,
            B AS B.spo2_percent >= 94
    ) AS T
    """


def create_fever_detection_query() -> str:
    """
    Additional pattern: Elevated temperature detection (fever onset).
    
    Pattern: 3+ consecutive events where skin_temp_c > 37.5
    """
    return """
    INSERT INTO biometrics_alerts
    SELECT 
        CAST(UUID() AS STRING) as alert_id,
        'ELEVATED_TEMPERATURE' as alert_type,
        user_id,
        CASE 
            WHEN avg_temp > 38.5 THEN 'CRITICAL'
            WHEN avg_temp > 38.0 THEN 'HIGH'
            ELSE 'MEDIUM'
        END as severity,
        start_ts as start_time,
        end_ts as end_time,
        avg_temp as avg_heart_rate,
        match_count as event_count,
        CONCAT('Elevated body temperature (', CAST(ROUND(avg_temp, 1) AS STRING), '°C avg) detected for ', CAST(match_count AS STRING), ' consecutive readings') as description
    FROM biometrics_raw
    MATCH_RECOGNIZE (
        PARTITION BY user_id
        ORDER BY ts
        MEASURES
            FIRST(A.ts) AS start_ts,
            LAST(A.ts) AS end_ts,
            AVG(A.skin_temp_c) AS avg_temp,
            COUNT(A.event_id) AS match_count
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A{3,}? B)
        DEFINE
            A AS A.skin_temp_c > 37.5,
            B AS B.skin_temp_c <= 37.5
    ) AS T
    """


def main():
    """Main entry point for the Flink job."""
    print("=" * 60)
    print("TELARA FLINK STREAM PROCESSOR")
    print("Starting health anomaly detection pipeline...")
    print("=" * 60)
    
    # Create streaming table environment
    env_settings = EnvironmentSettings.in_streaming_mode()
    table_env = TableEnvironment.create(env_settings)
    
    # Configure Flink
    table_env.get_config().set("parallelism.default", "1")
    table_env.get_config().set("table.exec.source.idle-timeout", "10000")
    
    # Create source table
    print("\n[1/5] Creating Kafka source table (biometrics-raw)...")
    table_env.execute_sql(create_kafka_source_ddl())
    print("      Source table created successfully.")
    
    # Create sink table
    print("\n[2/5] Creating Kafka sink table (biometrics-alerts)...")
    table_env.execute_sql(create_kafka_sink_ddl())
    print("      Sink table created successfully.")
    
    # Submit detection queries
    print("\n[3/5] Submitting Tachycardia at Rest detection query...")
    table_env.execute_sql(create_tachycardia_detection_query()).wait()
    print("      Tachycardia detection query submitted.")
    
    print("\n[4/5] Submitting Low SpO2 (Hypoxia) detection query...")
    table_env.execute_sql(create_hypoxia_detection_query()).wait()
    print("      Hypoxia detection query submitted.")
    
    print("\n[5/5] Submitting Elevated Temperature detection query...")
    table_env.execute_sql(create_fever_detection_query()).wait()
    print("      Temperature detection query submitted.")
    
    print("\n" + "=" * 60)
    print("ALL DETECTION QUERIES RUNNING")
    print("Monitoring patterns: TACHYCARDIA_AT_REST, LOW_SPO2_HYPOXIA, ELEVATED_TEMPERATURE")
    print("=" * 60)


if __name__ == "__main__":
    main()
