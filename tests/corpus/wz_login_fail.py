"""Login-failure detection (loginfail) from a PyFlink port of the "UserBehaviorAnalysis" course project.

Source: https://github.com/wagnzi/PyFlink-UserBehaviorAnalysis
  file LoginFailDetect/loginfail.py (commit d400e05508a775619852ce40e7fabd456a15e8cf).
  Exercises: KeyedProcessFunction with ListState of typed tuples, a ValueState holding an event-time timer, register/delete_event_time_timer, on_timer that sleeps 1 s and formats with time.localtime (time-zone dependent, same for both runs), a named print, and a configuration set through pyflink.util.java_utils.get_j_env_configuration (a Java-side helper).

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- env.read_text_file('LoginLog.csv') is replaced by env.from_collection of the lines of the
  repository's LoginFailDetect/LoginLog.csv (all of them, in file order);
- TimeCharacteristic and env.set_stream_time_characteristic(TimeCharacteristic.EventTime) are
  removed: they no longer exist in PyFlink 2.x (event time is the default);
- pyflink is replaced by weir in imports.
"""
import time
from typing import Any

from weir.common import Row, Types, Duration, Configuration
from weir.datastream import StreamExecutionEnvironment, KeyedProcessFunction, \
    RuntimeContext
from weir.common.watermark_strategy import WatermarkStrategy, TimestampAssigner
from weir.datastream.state import ListStateDescriptor, ValueStateDescriptor
from weir.util.java_utils import get_j_env_configuration


def split_input(row):
    line = row.split(',')
    user_id, ip, event_type, timestamp = int(line[0]), line[1], line[2], int(line[3])
    yield user_id, ip, event_type, timestamp


def login_fail_warning():
    env = StreamExecutionEnvironment.get_execution_environment()
    config = Configuration(j_configuration=get_j_env_configuration(env._j_stream_execution_environment))
    config.set_integer("python.fn-execution.bundle.size", 10)
    env.set_parallelism(1)

    input_stream = env.from_collection([
        "5402,83.149.11.115,success,1558430815",
        "23064,66.249.3.15,fail,1558430826",
        "5692,80.149.25.29,fail,1558430833",
        "7233,86.226.15.75,success,1558430832",
        "5692,80.149.25.29,success,1558430840",
        "29607,66.249.73.135,success,1558430841",
        "1035,83.149.9.216,fail,1558430842",
        "1035,83.149.9.216,fail,1558430843",
        "135,83.149.9.216,success,1558430844",
        "7328,193.114.45.13,success,1558430848",
        "29607,66.249.73.135,success,1558430847",
        "2133,50.16.19.13,success,1558430857",
        "6745,66.249.73.185,success,1558430859",
        "76456,110.136.166.128,success,1558430853",
        "8345,46.105.14.53,success,1558430855",
        "76456,110.136.166.128,success,1558430857",
        "76456,110.136.166.128,success,1558430854",
        "76456,110.136.166.128,fail,1558430859",
        "76456,110.136.166.128,success,1558430861",
        "3464,123.125.71.35,success,1558430860",
        "76456,110.136.166.128,success,1558430865",
        "65322,50.150.204.184,success,1558430866",
        "23565,207.241.237.225,fail,1558430862",
        "8455,200.49.190.101,success,1558430867",
        "8455,200.49.190.100,success,1558430865",
        "8455,200.49.190.101,success,1558430869",
        "8455,200.49.190.101,success,1558430872",
        "32031,66.249.73.185,success,1558430875",
        "12018,66.249.73.135,success,1558430874",
        "12018,66.249.73.135,success,1558430879",
        "12018,66.249.73.135,success,1558430881",
        "21419,67.214.178.190,success,1558430882",
        "21419,67.214.178.190,success,1558430880",
        "23565,207.241.237.220,success,1558430881",
        "2386,46.105.14.53,success,1558430883",
        "23565,207.241.237.227,success,1558430884",
        "83419,91.177.205.119,success,1558430881",
        "83419,91.177.205.119,fail,1558430882",
        "83419,91.177.205.119,success,1558430885",
        "83419,91.177.205.119,fail,1558430886",
        "83419,91.177.205.119,success,1558430884",
        "83419,91.177.205.119,success,1558430886",
        "4325,26.249.73.15,success,1558430888",
        "2123,207.241.237.228,success,1558430887",
        "21083,207.241.237.101,success,1558430889",
        "13490,87.169.99.232,success,1558430886",
        "93765,209.85.238.199,success,1558430890",
        "93765,209.85.238.199,success,1558430892",
    ], type_info=Types.STRING())
    type_info =  Types.TUPLE([Types.INT(), Types.STRING(), Types.STRING(), Types.LONG()])
    login_event_stream = input_stream.flat_map(split_input, output_type=type_info)

    watermark_stragery = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(3)).with_timestamp_assigner(row_timestamp_assigner())

    # 进行判断和检测，如果2秒内连续登录失败，输出报警信息
    login_fail_event_stream = login_event_stream.assign_timestamps_and_watermarks(watermark_stragery)\
                                                .key_by(lambda x: x[0]) \
                                                .process(login_fail_warning_result(2))
    login_fail_event_stream.print("fail")
    env.execute("login fail detect job")

class row_timestamp_assigner(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value[3] * 1000

class login_fail_warning_result(KeyedProcessFunction):

    def __init__(self, fail_times):
        self.fail_time = fail_times
        self.login_fail_list_state = None
        self.timer_ts_state = None

    def open(self, runtime_context: RuntimeContext):
        # 定义状态，保存当前所有的登录失败事件，保存定时器事件戳
        list_state_descriptor = ListStateDescriptor("login_fail_list", Types.TUPLE([Types.INT(), Types.STRING(), Types.STRING(), Types.LONG()]))
        self.login_fail_list_state = runtime_context.get_list_state(list_state_descriptor)

        ts_value_descriptor = ValueStateDescriptor("timer_ts", Types.LONG())
        self.timer_ts_state = runtime_context.get_state(ts_value_descriptor)

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 判断当前登录事件是成功还是失败
        if value[2] == 'fail':
            self.login_fail_list_state.add(value)
            # 如果没有定时器，注册一个2秒后的定时器
            if self.timer_ts_state.value() is None:
                ts = value[3] * 1000 + 2000
                ctx.timer_service().register_event_time_timer(ts)
                self.timer_ts_state.update(ts)
        else:
            # 如果是成功，则清空状态和定时器，重新开始
            if self.timer_ts_state.value() is not None:
                ctx.timer_service().delete_event_time_timer(self.timer_ts_state.value())
            self.login_fail_list_state.clear()
            self.timer_ts_state.clear()

    def on_timer(self, timestamp: int, ctx: 'KeyedProcessFunction.OnTimerContext'):
        all_login_fail_list = list()
        iter_info = iter(self.login_fail_list_state.get())
        for item in iter_info:
            all_login_fail_list.append(item)

        # 判断登录失败事件的个数，如果超过上限，报警
        login_fail_times = len(all_login_fail_list)
        if login_fail_times >= self.fail_time:
            head = all_login_fail_list[0]
            last = all_login_fail_list[login_fail_times-1]

            first_fail_time = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(head[3]))
            last_fail_time = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last[3]))

            result = '用户ID = ' + str(head[0]) + '\t' + \
                     '第一次失败时间: \t' + first_fail_time + '\t' + \
                    '最后一次失败时间: \t' + last_fail_time + '\t' + \
                    '2s内登录失败次数: \t' + str(login_fail_times) + '\n' + \
                     '\n=======================================\n\n'
            time.sleep(1)
            yield result

        self.login_fail_list_state.clear()
        self.timer_ts_state.clear()




if __name__ == '__main__':
    login_fail_warning()
