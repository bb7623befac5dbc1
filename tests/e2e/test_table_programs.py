"""Our own Table API and SQL programs (tests/table_programs) print what PyFlink 2.3
printed for them, on the in-process executor and on Spark."""

import os

import pytest

from tests.table_output import assert_same_output, assert_same_final_tables

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "table_programs")
NAMES = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
MATERIALIZED = {
    "sql_aggregates",
    "sql_joins",
    "sql_session_windows",
    "sql_with",
    "sql_top_n_changelog",
    "sql_top_n_offsets_changelog",
    "sql_session_window_keys",
    "sql_order_keys_streaming",
    "sql_aggregate_functions_retract",
}
EXACT = {"batch_sort"}  # (sorted: printed exactly as PyFlink printed, line by line)


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.spark)])
def run(request):
    return request.getfixturevalue(
        "run_program_locally" if request.param == "local" else "run_program"
    )


@pytest.mark.parametrize("name", NAMES)
def test_table_program_prints_what_pyflink_prints(run, name):
    printed = run(os.path.join(PROGRAMS, f"{name}.py"))
    with open(os.path.join(PROGRAMS, f"{name}.flink.out")) as expected:
        flink = expected.read()
    if name in EXACT:
        assert printed.splitlines() == flink.splitlines()
    elif name in MATERIALIZED:
        assert_same_final_tables(printed, flink)
    else:
        assert_same_output(printed, flink)
