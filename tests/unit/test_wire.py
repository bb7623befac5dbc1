"""The wire protocol's bundles: what producers write is what a key group reads, in order."""

import random

from weir.runtime.wire import (
    AFTER_WATERMARK,
    BEFORE_WATERMARK,
    MAX_BUNDLE_RECORDS,
    Bundler,
    KeyGroupInput,
    bundle_values,
    make_seq,
)


def _route(bundler, producer, phase, counter, values, stamps, key_groups):
    """What a producer's Router does for one target: numbered from `counter` on."""
    bundler.add_all("op", 0, key_groups, make_seq(phase, producer, counter), values, stamps)
    return counter + len(values)


def test_a_key_group_reads_each_producers_records_in_order_phase_0_first():
    """Records of one key group from three producers, each routing two calls per phase,
    come out phase 0 first, then by producer, each producer's in its order, with their
    timestamps; a bundle's records carry its order key (only the phase is read)."""
    rng = random.Random(7)
    rows, expected = [], {}
    for producer in (2, 0, 1):
        bundler, counter = Bundler(), 0
        for phase in (AFTER_WATERMARK, BEFORE_WATERMARK):  # written out of order on purpose
            for call in range(2):
                values = [(producer, phase, call, i) for i in range(50)]
                stamps = [None if i % 3 else 1000 * i for i in range(50)]
                groups = [rng.randrange(4) for _ in values]
                for i, (value, stamp, group) in enumerate(zip(values, stamps, groups)):
                    expected.setdefault(group, []).append(
                        (phase, producer, counter + i, value, stamp)
                    )
                counter = _route(bundler, producer, phase, counter, values, stamps, groups)
        rows += bundler.rows()
    rng.shuffle(rows)  # an engine delivers rows in any order
    for group, records in expected.items():
        read = KeyGroupInput([r for r in rows if r[2] == group], labelled=False).records
        want = sorted(records, key=lambda r: (r[0], r[1], r[2]))
        assert list(zip(read.values, read.stamps)) == [r[3:] for r in want]
        phases = [r[0] for r in want]
        assert read.first_after_watermark == phases.count(BEFORE_WATERMARK)  # then phase 1
        assert phases == sorted(phases)


def test_a_bundle_row_has_its_largest_timestamp_and_no_column_of_none():
    bundler = Bundler()
    bundler.add_all("op", 0, None, 0, ["a", "b", "c"], [5, None, 9])
    bundler.add_all("op", 0, None, 3, ["d"], [None])
    with_stamps, without = bundler.rows()
    assert with_stamps[5] == 9 and without[5] is None
    assert bundle_values(with_stamps[4]) == ["a", "b", "c"]
    read = KeyGroupInput([with_stamps, without], labelled=False).records
    assert (read.values, read.stamps, read.keys, read.inputs, read.first_after_watermark) == (
        ["a", "b", "c", "d"],
        [5, None, 9, None],
        [None] * 4,
        None,
        4,
    )


def test_long_outputs_are_cut_into_bundles_that_read_back_in_order():
    bundler = Bundler()
    values = list(range(2 * MAX_BUNDLE_RECORDS + 5))
    bundler.add_all(
        "sink", 0, None, make_seq(AFTER_WATERMARK, 3, 0), values, [None] * len(values), key_group=1
    )
    rows = bundler.rows()
    assert len(rows) == 3
    assert [v for row in rows for v in bundle_values(row[4])] == values
    read = KeyGroupInput(rows[::-1], labelled=False).records
    assert read.values == values and read.first_after_watermark == 0


def test_labelled_records_carry_their_input_and_controls_are_read():
    first, second = Bundler(), Bundler()
    first.add_all("op", 0, [0, 0], make_seq(AFTER_WATERMARK, 0, 0), ["l1", "l2"], [None, None])
    second.add_all("op", 1, [0], make_seq(AFTER_WATERMARK, 1, 0), ["r1"], [7])
    second.add_ends("op", 1, source=4)
    read = KeyGroupInput(second.rows() + first.rows(), labelled=True)
    records = read.records
    assert list(zip(records.values, records.stamps, records.inputs)) == [
        ("l1", None, 0),
        ("l2", None, 0),
        ("r1", 7, 1),
    ]
    assert read.ended == frozenset({4})


def test_a_broadcast_bundle_is_pickled_once_for_every_key_group():
    bundler = Bundler()
    bundler.add_to_every_key_group("op", 1, 3, make_seq(AFTER_WATERMARK, 0, 0), ["rule"], [None])
    rows = bundler.rows()
    assert [row[2] for row in rows] == [0, 1, 2]
    assert len({id(row[4]) for row in rows}) == 1
    assert all(row[3] is None for row in rows)
