"""Our own PyFlink programs (tests/flink_programs) print what PyFlink 2.3 printed, on
Spark and on the in-process executor."""

import os

import pytest

from tests.flink_output import assert_same_records, lines_of

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "flink_programs")
NAMES = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))


def _flink_lines(name):
    with open(os.path.join(PROGRAMS, f"{name}.flink.out")) as expected:
        return lines_of(expected.read())


@pytest.mark.parametrize("name", NAMES)
def test_program_prints_what_pyflink_prints(run_program, name):
    printed = run_program(os.path.join(PROGRAMS, f"{name}.py"))
    assert_same_records(lines_of(printed), _flink_lines(name))


@pytest.mark.parametrize("name", NAMES)
def test_program_prints_what_pyflink_prints_in_process(run_program_locally, name):
    printed = run_program_locally(os.path.join(PROGRAMS, f"{name}.py"))
    assert_same_records(lines_of(printed), _flink_lines(name))
