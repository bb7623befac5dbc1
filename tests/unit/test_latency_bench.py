"""bench/latency.py's two latencies, taken the same way from either side's results."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "bench_latency", os.path.join(ROOT, "bench", "latency.py")
)
latency = importlib.util.module_from_spec(spec)
spec.loader.exec_module(latency)


def batch(start_s, duration_ms, rows=10):
    return (start_s, duration_ms, {"triggerExecution": duration_ms}, rows)


def test_a_weir_result_counts_once_per_key_and_micro_batch_with_its_newest_record():
    batches = [batch(10.0, 300), batch(10.3, 300)]
    seen = [
        (10.1, "a", 9_990),  # the first batch: key a's records due at 9.99 and 9.995 s
        (10.2, "a", 9_995),
        (10.2, "b", 9_980),
        (10.5, "a", 10_290),  # the second batch
    ]
    assert latency.newest_per_key(seen, batches) == [
        (10.2, 10.2 * 1000 - 9_995),
        (10.2, 10.2 * 1000 - 9_980),
        (10.5, 10.5 * 1000 - 10_290),
    ]


def test_a_native_row_gives_its_newest_record_and_each_new_record_back_from_it():
    rows = [(10.0, "a", 3, 9_900), (11.0, "a", 5, 10_900), (11.0, "b", 1, 10_950)]
    results, records = latency.native_latencies(rows, spacing_ms=10)
    assert results == [(10.0, 100.0), (11.0, 100.0), (11.0, 50.0)]
    # key a: 3 records, then 2 more (its count grew from 3 to 5), 10 ms apart
    assert records == [
        (10.0, 100.0),
        (10.0, 110.0),
        (10.0, 120.0),
        (11.0, 100.0),
        (11.0, 110.0),
        (11.0, 50.0),
    ]


def test_results_after_the_last_micro_batch_in_the_progress_are_left_out():
    results = [(t / 10, 100) for t in range(100)] + [(10.5, 5_000)]  # stopped mid-batch
    records = [(t / 10, 200) for t in range(100)] + [(10.5, 9_000)]
    figures = latency.steady_figures(results, records, [batch(0.0, 1000), batch(9.0, 1000)], 0)
    assert figures["latency"] == [100, 100, 100]
    assert figures["records"] == [200, 200, 200]
    assert figures["catch_up_s"] == 0
