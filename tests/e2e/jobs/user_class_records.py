"""The program of issue 48, as a user writes it: records that are instances of a class of
the job script (found in no module a Spark worker can import), and a print() in a user
function, as people debug. Usage: user_class_records.py [spark|local]"""

import sys

from weir.common import WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment


class Reading:  # a record class defined in the job script
    def __init__(self, sensor, value):
        self.sensor, self.value = sensor, value

    def __repr__(self):
        return f"Reading({self.sensor}, {self.value})"


class ByValue(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        print(f"stamping {value}")
        return value.value * 1000


env = StreamExecutionEnvironment.get_execution_environment()
if len(sys.argv) > 1:
    env.set_executor(sys.argv[1])
env.set_parallelism(1)
env.from_collection(["a,1", "b,2", "a,3"]).map(
    lambda line: Reading(line.split(",")[0], int(line.split(",")[1]))
).assign_timestamps_and_watermarks(
    WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ByValue())
).key_by(lambda r: r.sensor).reduce(lambda a, b: Reading(a.sensor, a.value + b.value)).print()
env.execute("readings")
