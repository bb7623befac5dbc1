"""from_data_stream with field expressions (fields picked by name, renamed, a `.rowtime`
field holding the records' timestamps), and the legacy conversions' Java classes."""

import datetime
import decimal

from weir.common.flink_text import java_text
from weir.common.row import Row
from weir.common.time import Instant
from weir.common.typeinfo import Types
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment
from weir.table.expressions import col
from weir.table.streams import _field_converters, _to_big_decimal, _to_instant


def test_fields_are_picked_by_name_and_a_rowtime_field_becomes_the_time_attribute():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    stream = env.from_collection(
        [Row(1, "pv", 5)],
        type_info=Types.ROW_NAMED(
            ["item", "behavior", "stamp"], [Types.INT(), Types.STRING(), Types.LONG()]
        ),
    )
    table = t_env.from_data_stream(
        stream, col("behavior"), col("item").alias("id"), col("stamp").rowtime.alias("ts")
    )
    assert [(c.name, str(c.data_type), c.time_attribute) for c in table._node.columns] == [
        ("behavior", "STRING", False),
        ("id", "INT", False),
        ("ts", "TIMESTAMP(3)", True),
    ]


def test_legacy_conversions_give_instants_and_big_decimals_as_flink_prints_them():
    instant = _to_instant(datetime.datetime(2017, 11, 26, 1, 5))
    assert instant == Instant.of_epoch_milli(1511658300000)
    assert java_text(instant, Types.INSTANT()) == "2017-11-26T01:05:00Z"
    assert (
        java_text(Instant.of_epoch_milli(1511658300120), Types.INSTANT())
        == "2017-11-26T01:05:00.120Z"
    )
    assert str(_to_big_decimal(3)) == "3.000000000000000000"
    assert _to_big_decimal(decimal.Decimal("1.5")) == decimal.Decimal("1.5")
    converters = _field_converters(Types.TUPLE([Types.INT(), Types.INSTANT(), Types.BIG_DEC()]))
    assert converters == [None, _to_instant, _to_big_decimal]
