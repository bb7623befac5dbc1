"""Top-N over a changelog (weir.table.changelog_rank) through the operator harness, fed
the aggregation changes in the order PyFlink 2.3's aggregation sent them, emitting what
PyFlink printed for the same queries (tests/table_programs/sql_top_n_changelog.py's,
first with plum's second sale 6: `apple` and `plum` tie at 7 there)."""

from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from weir.table.changelog_rank import ChangelogTopN
from weir.testing.harness import KeyedOperatorHarness

I, UB, UA, D = INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE  # noqa: E741
SUMS = [
    (I, ("fruit", "apple", 3)),
    (I, ("fruit", "pear", 5)),
    (I, ("veg", "leek", 4)),
    (I, ("fruit", "plum", 1)),
    (UB, ("fruit", "apple", 3)),
    (UA, ("fruit", "apple", 7)),
    (I, ("veg", "kale", 2)),
    (UB, ("fruit", "plum", 1)),
    (UA, ("fruit", "plum", 7)),
    (UB, ("veg", "kale", 2)),
    (UA, ("veg", "kale", 5)),
    (UB, ("fruit", "pear", 5)),
    (UA, ("fruit", "pear", 6)),
    (I, ("fruit", "fig", 2)),
]
COUNTS = [
    (I, ("apple", 1)),
    (I, ("pear", 1)),
    (I, ("leek", 1)),
    (I, ("plum", 1)),
    (UB, ("apple", 1)),
    (UA, ("apple", 2)),
    (I, ("kale", 1)),
    (UB, ("plum", 1)),
    (UA, ("plum", 2)),
    (UB, ("kale", 1)),
    (UA, ("kale", 2)),
    (UB, ("pear", 1)),
    (UA, ("pear", 2)),
    (I, ("fig", 1)),
]


def run(function, key, changes):
    h = KeyedOperatorHarness(function, key)
    for change in changes:
        h.process_element(change)
    return h.extract_values()


def by_total(output_rank):
    return ChangelogTopN([lambda v: v[2]], [True], 2, output_rank)


def test_with_the_rank_each_changed_rank_is_updated_in_rank_order():
    assert run(by_total(True), lambda r: r[1][0], SUMS) == [
        (I, ("fruit", "apple", 3, 1)),
        (UB, ("fruit", "apple", 3, 1)),
        (UA, ("fruit", "pear", 5, 1)),
        (I, ("fruit", "apple", 3, 2)),
        (I, ("veg", "leek", 4, 1)),
        (UB, ("fruit", "apple", 3, 2)),
        (UA, ("fruit", "plum", 1, 2)),
        (UB, ("fruit", "pear", 5, 1)),
        (UA, ("fruit", "apple", 7, 1)),
        (UB, ("fruit", "plum", 1, 2)),
        (UA, ("fruit", "pear", 5, 2)),
        (I, ("veg", "kale", 2, 2)),
        (UB, ("fruit", "pear", 5, 2)),
        (UA, ("fruit", "plum", 7, 2)),
        (D, ("veg", "kale", 2, 2)),
        (UB, ("veg", "leek", 4, 1)),
        (UA, ("veg", "kale", 5, 1)),
        (I, ("veg", "leek", 4, 2)),
    ]


def test_without_the_rank_rows_leaving_are_deleted_before_rows_entering_are_inserted():
    assert run(by_total(False), lambda r: r[1][0], SUMS) == [
        (I, ("fruit", "apple", 3)),
        (I, ("fruit", "pear", 5)),
        (I, ("veg", "leek", 4)),
        (D, ("fruit", "apple", 3)),
        (I, ("fruit", "plum", 1)),
        (D, ("fruit", "plum", 1)),
        (I, ("fruit", "apple", 7)),
        (I, ("veg", "kale", 2)),
        (D, ("fruit", "pear", 5)),
        (I, ("fruit", "plum", 7)),
        (D, ("veg", "kale", 2)),
        (I, ("veg", "kale", 5)),
    ]


def test_counts_by_key_are_upserts_and_a_key_staying_in_the_top_is_updated():
    function = ChangelogTopN(
        [lambda v: v[1], lambda v: v[0]], [True, False], 3, False, key_indexes=[0]
    )
    assert run(function, lambda r: 0, COUNTS) == [
        (I, ("apple", 1)),
        (I, ("pear", 1)),
        (I, ("leek", 1)),
        (UB, ("apple", 1)),
        (UA, ("apple", 2)),
        (D, ("pear", 1)),
        (I, ("kale", 1)),
        (D, ("leek", 1)),
        (I, ("plum", 2)),
        (UB, ("kale", 1)),
        (UA, ("kale", 2)),
        (D, ("plum", 2)),
        (I, ("pear", 2)),
    ]


def test_flinks_update_strategy_is_chosen_for_counts_and_maxima_not_sums():
    from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
    from weir.table.changelog_rank import unique_key

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.create_temporary_view(
        "s",
        t_env.from_elements(
            [("a", 1)],
            DataTypes.ROW(
                [DataTypes.FIELD("p", DataTypes.STRING()), DataTypes.FIELD("x", DataTypes.INT())]
            ),
        ),
    )

    def strategy(aggregate, order):
        node = t_env.sql_query(
            f"SELECT p, v FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY {order}) AS rn FROM "
            f"(SELECT p, {aggregate}(x) AS v FROM s GROUP BY p)) WHERE rn <= 3"
        )._node
        while type(node).__name__ != "Rank":
            node = node.input
        return unique_key(node)

    assert strategy("COUNT", "v DESC, p") == [0]
    assert strategy("MAX", "v DESC") == [0]
    assert strategy("MIN", "v") == [0]
    assert strategy("SUM", "v DESC") is None
    assert strategy("COUNT", "v") is None  # (a count only grows: ascending moves it down)


def _applied(changes):
    rows = []
    for kind, values in changes:
        if kind in (I, UA):
            rows.append(values)
        else:
            rows.remove(values)  # (a retraction of a row not out is an error)
    return sorted(rows)


def test_ranks_from_past_the_first_add_up_to_a_brute_forces_after_every_change():
    """Ranks 2..3 of each group, with and without the rank number: after each change the
    changes out so far applied are the sorted group's rows 2..3 (the changes never
    retract a row they did not insert, which PyFlink 2.3's do without the rank)."""
    for output_rank in (True, False):
        function = ChangelogTopN([lambda v: v[2]], [True], 3, output_rank, rank_start=2)
        harness = KeyedOperatorHarness(function, lambda r: r[1][0])
        live, out = [], []
        for change in SUMS:
            harness.process_element(change)
            out += harness.extract_values()
            if change[0] in (I, UA):
                live.append(change[1])
            else:
                live.remove(change[1])
            expected = []
            for group in ("fruit", "veg"):  # (ties: in arrival order, an update arriving anew)
                ranked = sorted((r for r in live if r[0] == group), key=lambda r: -r[2])
                expected += [
                    r + ((rank,) if output_rank else ()) for rank, r in enumerate(ranked[1:3], 2)
                ]
            assert _applied(out) == sorted(expected), (output_rank, change)
