"""Fraud detection with CEP: per card, a small transaction followed by a large one within
a minute (a stolen card tested with a small purchase, then used).

The pattern, in FlinkCEP's API (weir.cep):

    small: amount < 1.00, then (not necessarily at once) large: amount > 500.00,
    within one minute of the small one, per card.

The transactions are a fixed list with event times; the watermark follows them, so the
result is the same every run. Each alert prints the card, the two amounts and the
seconds between them. Partial matches whose minute passed are dropped by the operator.

Run: `.venv/bin/python examples/fraud_detection.py` (on an embedded local Spark).
"""

from weir.cep import CEP, Duration, Pattern, PatternProcessFunction
from weir.common import Types, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment

BASE = 1_700_000_000_000  # the first transaction's time (ms since the epoch)

# (card, amount, seconds after BASE)
TRANSACTIONS = [
    ("card-1", 25.00, 0),
    ("card-2", 0.50, 5),  # small on card-2 ...
    ("card-1", 0.99, 12),  # small on card-1 ...
    ("card-3", 730.00, 20),  # large, no small before: no alert
    ("card-2", 12.00, 30),
    ("card-1", 640.00, 45),  # ... large 33 s after: alert
    ("card-2", 520.00, 80),  # ... large 75 s after card-2's small: too late
    ("card-3", 0.10, 90),  # small on card-3 ...
    ("card-3", 0.20, 100),  # another small ...
    ("card-3", 900.00, 140),  # ... large 50 s and 40 s after them: two alerts
]


class TransactionTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return BASE + value[2] * 1000


class Alert(PatternProcessFunction):
    def process_match(self, match, ctx):
        small, large = match["small"][0], match["large"][0]
        yield f"{small[0]}: {small[1]:.2f} then {large[1]:.2f} after {large[2] - small[2]} s"


def fraud_pattern() -> Pattern:
    return (
        Pattern.begin("small")
        .where(lambda t: t[1] < 1.00)
        .followed_by("large")
        .where(lambda t: t[1] > 500.00)
        .within(Duration.of_minutes(1))
    )


def build(env):
    transactions = env.from_collection(
        TRANSACTIONS, Types.TUPLE([Types.STRING(), Types.DOUBLE(), Types.LONG()])
    ).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(TransactionTime())
    )
    alerts = CEP.pattern(transactions.key_by(lambda t: t[0]), fraud_pattern()).process(
        Alert(), Types.STRING()
    )
    alerts.print()
    return alerts


if __name__ == "__main__":
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    build(env)
    env.execute("fraud detection")
