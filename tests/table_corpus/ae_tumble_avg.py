"""Count and average per key over 2-minute event-time TUMBLE windows, the event time parsed
from an ISO string by TO_TIMESTAMP in a computed column.

Source: https://github.com/AuthEceSoftEng/ecoready-services
  file org.project.collection_live_aggregation.py (commit
  75206245b9144bc582f964d871eaf8a23ca3b713).
  Exercises: TableEnvironment in streaming mode, get_config().set("table.exec.source.idle-timeout",
  ...), a json source with backquoted columns (`key`, `timestamp`), a computed column
  `event_time` AS TO_TIMESTAMP(`timestamp`, 'yyyy-MM-dd''T''HH:mm:ss''Z''') (quotes doubled in
  the pattern) with WATERMARK FOR `event_time` AS `event_time` - INTERVAL '5' SECOND, INSERT INTO
  ... SELECT with the legacy group window TUMBLE(`event_time`, INTERVAL '2' MINUTES),
  TUMBLE_START/TUMBLE_END, COUNT(*) AS `count`, AVG on a DOUBLE.

Adapted for weir's test corpus (the SQL text is verbatim but for the connector options):
- the Kafka source (key.format raw with key.fields `key`, value.format json, fields EXCEPT_KEY)
  becomes a filesystem json source over data/ae_collection.json with the same columns (the
  key as a json field): 22 readings of 3 sensors over 8 minutes, some out of order by up to
  4 s (within the 5 s watermark delay);
- the Kafka sink becomes a print-connector sink with the same columns;
- the INSERT's execute_sql(...) gets .wait() (without it the script ends before its job runs);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

from weir.table import TableEnvironment, EnvironmentSettings

env_settings = EnvironmentSettings.new_instance().in_streaming_mode().build()
t_env = TableEnvironment.create(env_settings)
table_config = t_env.get_config().set("table.exec.source.idle-timeout", "10000 ms")


t_env.execute_sql(f"""
CREATE TABLE KafkaSource (
    `key` STRING,
    `c` DOUBLE,
    `timestamp` STRING,
    `event_time` AS TO_TIMESTAMP(`timestamp`, 'yyyy-MM-dd''T''HH:mm:ss''Z'''),
    WATERMARK FOR `event_time` AS `event_time` - INTERVAL '5' SECOND
) WITH (
    'connector' = 'filesystem',
    'path' = '{DATA}/ae_collection.json',
    'format' = 'json'
)
""")


t_env.execute_sql("""
CREATE TABLE KafkaSink (
    `key` STRING,
    window_start TIMESTAMP(3),
    window_end TIMESTAMP(3),
    `count` BIGINT,
    avg_c DOUBLE
) WITH (
    'connector' = 'print'
)
""")


t_env.execute_sql("""
INSERT INTO KafkaSink
SELECT
    `key`,
    TUMBLE_START(`event_time`, INTERVAL '2' MINUTES) as window_start,
    TUMBLE_END(`event_time`, INTERVAL '2' MINUTES) as window_end,
    COUNT(*) as `count`,
    AVG(c) as avg_c
FROM KafkaSource
GROUP BY `key`, TUMBLE(`event_time`, INTERVAL '2' MINUTES)
""").wait()
