"""Keyed state shared by the two inputs of a CoFlatMapFunction: account balances and statuses.

Source: https://github.com/NumanIbnMazid/pyflink
  file state/keyed_state_connected.py (commit 1d46eae95253f152b623c0127bfdfcf667592ecf).
  Exercises: connect of two streams of JSON strings, ConnectedStreams.key_by with two lambdas,
  flat_map with a CoFlatMapFunction whose open() creates two ValueStates used by both inputs,
  generator flat_map1/flat_map2. Note: what is printed depends on how the two inputs
  interleave.

Adapted for weir's test corpus (the user's functions are verbatim):
- the two Kafka sources ("main-topic", "status-topic") are replaced by env.from_collection of
  JSON strings in the formats given in the program's comments
  ({"name": "elon", "add_amount": 5500} and {"name": "elon", "status": "inactive"});
- env.add_jars of the Kafka connector jar (a file next to the script, absent here) is removed,
  with the Kafka imports;
- pyflink is replaced by weir in imports.
"""
import json
import os

from weir.common import WatermarkStrategy
from weir.common.typeinfo import Types
from weir.datastream import StreamExecutionEnvironment, CoFlatMapFunction, RuntimeContext
from weir.datastream.state import ValueStateDescriptor


class Account(CoFlatMapFunction):
    def open(self, ctx: RuntimeContext):
        """Runs only the first time the operator is loaded"""
        amount_descriptor = ValueStateDescriptor("amount", Types.INT())
        status_descriptor = ValueStateDescriptor("status", Types.STRING())
        self.amount_state = ctx.get_state(amount_descriptor)
        self.status_state = ctx.get_state(status_descriptor)

    def flat_map1(self, data):
        """Runs every time new data arrives from the main_ds stream"""
        # start account at $0 for non-existing keys
        data_dict = json.loads(data)
        account_name = data_dict["name"]
        current_amount_state = self.amount_state.value()
        if current_amount_state is None:
            self.amount_state.update(0)

        # check if account is frozen
        current_status_state = self.status_state.value()
        if current_status_state == "inactive":
            yield f"{account_name} -> ${self.amount_state.value()}[inactive], StatusState: {self.amount_state.value()}"

        else:
            # update the total amount
            current_amount = self.amount_state.value()
            amount_to_add = data_dict["add_amount"]
            new_amount = current_amount + amount_to_add

            # update the state
            self.amount_state.update(new_amount)

            yield f"{account_name} -> ${self.amount_state.value()}, AmountState: {self.amount_state.value()}"

    def flat_map2(self, data):
        """Runs every time new data arrives from the status_ds stream"""
        data_dict = json.loads(data)
        account_name = data_dict["name"]
        account_status = data_dict["status"]

        # set account status state
        self.status_state.update(account_status)
        yield f"{account_name} -> AmountState: {self.amount_state.value()}, StatusState: {self.status_state.value()}"


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)

    main_ds = env.from_collection([
        '{"name": "elon", "add_amount": 5500}',
        '{"name": "jeff", "add_amount": 300}',
        '{"name": "elon", "add_amount": 200}',
        '{"name": "bill", "add_amount": 1000}',
        '{"name": "jeff", "add_amount": 700}',
        '{"name": "elon", "add_amount": 50}',
    ], type_info=Types.STRING())

    status_ds = env.from_collection([
        '{"name": "jeff", "status": "inactive"}',
        '{"name": "bill", "status": "active"}',
    ], type_info=Types.STRING())

    # topology definition
    (
        main_ds  # stream with data format {"name": "elon", "add_amount": 5500}
        .connect(status_ds)  # stream with data format {"name": "elon", "status": "inactive"}
        # connecting the 2 streams produces a ConnectedDataStream, but the operator that
        # follows sees the data as coming from 2 separate streams which must be processed using
        # 2 separate functions provided by the "Co" function families such as CoFlatMapFunction above
        .key_by(
            lambda data: json.loads(data)["name"],  # key on which to partition for main_ds
            lambda data: json.loads(data)["name"])  # key on which to partition for status_ds
        .flat_map(Account())  # Account function must be a subclass of "Co" function family
        .print()
    )
    env.execute()


if __name__ == "__main__":
    main()
