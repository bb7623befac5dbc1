"""Nexmark's queries (tests/nexmark) over 2,000 generated events give on weir the final
rows PyFlink 2.3 gave over the same files (tests/nexmark/nexmark.flink.out), on the
in-process executor and on Spark."""

import os
import re

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "nexmark")
EVENTS = 2000


def _by_query(text):
    blocks, name = {}, None
    for line in text.splitlines():
        match = re.fullmatch(r"== (q\d+): (\d+) rows", line)
        if match:
            name = match[1]
            blocks[name] = []
        elif name is not None:
            blocks[name].append(line)
    return blocks


def _expected():
    with open(os.path.join(HERE, "nexmark.flink.out")) as expected:
        return _by_query(expected.read())


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.spark)])
def run(request):
    return request.getfixturevalue(
        "run_program_locally" if request.param == "local" else "run_program"
    )


def test_nexmark_queries_give_pyflinks_results(run, tmp_path):
    printed = _by_query(run(os.path.join(HERE, "run_queries.py"), str(tmp_path), str(EVENTS)))
    expected = _expected()
    assert set(printed) == set(expected)
    for name in expected:
        assert printed[name] == expected[name], name
    assert sum(len(rows) for rows in expected.values()) > 5000  # (the queries have rows)
