"""Ad views per campaign in 10-second event-time windows (the Yahoo Streaming Benchmark's job).

The Yahoo Streaming Benchmark (YSB) reads ad events, keeps the "view" events, joins each
event's ad to its campaign through a lookup table, and counts views per campaign in 10 s
tumbling event-time windows. Here:

* events are generated deterministically (numpy, seeded) and written to Parquet files:
  user_id, page_id, ad_id (int), ad_type (str), event_type ("view", "click" or "purchase",
  about a third each), event_time (epoch ms) and ip (str). Event times rise steadily over
  `span_s` seconds, each with a random delay of 0..1499 ms: an event is never more than
  1.5 s older than any event before it;
* the lookup table is a numpy array, `campaign_of_ad[ad_id] -> campaign_id`, with
  `ads_per_campaign(campaigns)` ads per campaign (10, as YSB, while that keeps the table at
  most 1,000,000 entries; 1 above that);
* the job: FileSource (Parquet) -> timestamps from event_time, watermarks 2 s behind ->
  filter views -> map to the campaign id (lookup table) -> key_by campaign -> 10 s tumbling
  event-time windows -> the built-in Count() aggregate (counted a micro-batch at a time in
  numpy), whose ProcessWindowFunction adds the window's bounds: (campaign_id, window_start,
  window_end, count). The end of the input is a
  +infinity watermark, so every window fires, the last ones included.

`bench/ysb.py` runs this same job (`build`, `generate_events`, `write_event_files`) against
native Spark SQL.

Run: `.venv/bin/python examples/ad_campaign_counts.py [events] [campaigns]` (on an embedded
local Spark; it finishes by itself and prints some window counts). `--local` runs it on the
in-process runner instead.
"""

import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from weir.common import Duration, Time, WatermarkStrategy
from weir.datastream import MapFunction, ProcessWindowFunction, StreamExecutionEnvironment
from weir.datastream.aggregations import Count
from weir.datastream.connectors import FileSource
from weir.datastream.window import TumblingEventTimeWindows

BASE_TIMESTAMP = 1_700_000_000_000  # 2023-11-14T22:13:20Z, in epoch milliseconds
WINDOW_MS = 10_000  # the job's Time.seconds(10)
OUT_OF_ORDERNESS_MS = 2_000  # the job's Duration.of_seconds(2)
MAX_DELAY_MS = 1_500  # an event is at most this much older than its slot
EVENT_TYPES = ("view", "click", "purchase")
AD_TYPES = ("banner", "modal", "sponsored-search", "mail", "mobile")
MAX_TABLE_ADS = 1_000_000


# -- data -----------------------------------------------------------------------------------
def ads_per_campaign(campaigns: int) -> int:
    """YSB's 10 ads per campaign while the table stays <= 1,000,000 ads, else 1."""
    return 10 if campaigns * 10 <= MAX_TABLE_ADS else 1


def campaign_table(campaigns: int, seed: int = 7) -> np.ndarray:
    """campaign_of_ad[ad_id]: every campaign owns ads_per_campaign ads, scattered."""
    per = ads_per_campaign(campaigns)
    rng = np.random.default_rng([seed, campaigns, 1])
    return (rng.permutation(campaigns * per) // per).astype(np.int32)


def generate_events(count: int, campaigns: int, span_s: float = 400.0, seed: int = 7):
    """(events as a pyarrow Table, campaign_of_ad): a pure function of its arguments."""
    table = campaign_table(campaigns, seed)
    rng = np.random.default_rng([seed, campaigns, count])
    slot = BASE_TIMESTAMP + np.arange(count, dtype=np.int64) * int(span_s * 1000) // count
    event_time = slot + rng.integers(0, MAX_DELAY_MS, count, dtype=np.int64)
    octets = [
        pc.cast(pa.array(rng.integers(0, 256, count, dtype=np.int32)), pa.string())
        for _ in range(3)
    ]
    events = pa.table(
        {
            "user_id": rng.integers(0, 1_000_000, count, dtype=np.int64),
            "page_id": rng.integers(0, 100_000, count, dtype=np.int64),
            "ad_id": rng.integers(0, len(table), count, dtype=np.int64),
            "ad_type": pc.take(pa.array(AD_TYPES), rng.integers(0, len(AD_TYPES), count)),
            "event_type": pc.take(pa.array(EVENT_TYPES), rng.integers(0, 3, count)),
            "event_time": event_time,
            "ip": pc.binary_join_element_wise("10", *octets, "."),
        }
    )
    return events, table


def write_event_files(events: pa.Table, directory: str, files: int) -> str:
    """The events in `files` Parquet files, in event order, with increasing mtimes (both
    engines read files in modification-time order)."""
    os.makedirs(directory, exist_ok=True)
    bounds = [len(events) * f // files for f in range(files + 1)]
    for f in range(files):
        path = os.path.join(directory, f"events-{f:05d}.parquet")
        pq.write_table(events.slice(bounds[f], bounds[f + 1] - bounds[f]), path)
        os.utime(path, ns=(1_000_000_000 * (f + 1),) * 2)
    return directory


# -- the job --------------------------------------------------------------------------------
def event_time_of(event, record_timestamp):
    return event.event_time


def ad_watermarks() -> WatermarkStrategy:
    return WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(2)
    ).with_timestamp_assigner(event_time_of)


def is_view(event) -> bool:
    return event.event_type == "view"


class CampaignOf(MapFunction):
    """The join: an event's campaign id. The table ships as a compact numpy array; each
    task turns it into a list once (indexing a list of ints is the fastest lookup)."""

    def __init__(self, campaign_of_ad: np.ndarray):
        self.campaign_of_ad = campaign_of_ad
        self._lookup = None

    def open(self, runtime_context):
        self._lookup = self.campaign_of_ad.tolist()

    def map(self, event):
        return self._lookup[event.ad_id]

    def __getstate__(self):
        return {"campaign_of_ad": self.campaign_of_ad, "_lookup": None}


def campaign_key(campaign_id):
    return campaign_id


class WithWindowBounds(ProcessWindowFunction):
    """(campaign_id, window_start, window_end, count) of a fired window."""

    def process(self, key, context, elements):
        window = context.window()
        return [(key, window.start, window.end, count) for count in elements]


def build(env, source, campaign_of_ad: np.ndarray):
    """The stream of (campaign_id, window_start, window_end, view count) of `source`."""
    events = env.from_source(source, ad_watermarks(), "ad events")
    return (
        events.filter(is_view)
        .name("views")
        .map(CampaignOf(campaign_of_ad))
        .name("campaign lookup")
        .key_by(campaign_key)
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .aggregate(Count(), window_function=WithWindowBounds())
        .name("views per campaign and window")
    )


def event_source(directory: str, files_per_batch: int = 1) -> FileSource:
    return FileSource.for_parquet(directory).set_max_files_per_batch(files_per_batch).build()


def main(count: int = 20_000, campaigns: int = 100, local: bool = False):
    env = StreamExecutionEnvironment.get_execution_environment()
    if local:
        env.set_executor("local")
    events, campaign_of_ad = generate_events(count, campaigns, span_s=60.0)
    with tempfile.TemporaryDirectory(prefix="ad-events-") as directory:
        write_event_files(events, directory, files=4)
        counts = list(
            build(env, event_source(directory), campaign_of_ad).execute_and_collect(
                "ad campaign counts"
            )
        )
    counts.sort(key=lambda c: (c[1], c[0]))
    windows = sorted({c[1] for c in counts})
    print(
        f"{count:,} events, {campaigns:,} campaigns: {len(counts):,} (campaign, window) "
        f"counts over {len(windows)} windows, {sum(c[3] for c in counts):,} views"
    )
    for campaign_id, start, end, views in counts[:5] + counts[-5:]:
        print(f"  campaign {campaign_id:>7}  [{start}, {end})  {views:>5} views")
    return counts


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--local"]
    main(*(int(a) for a in arguments[:2]), local="--local" in sys.argv[1:])
