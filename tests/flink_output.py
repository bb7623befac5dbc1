"""Comparing a program's output with what PyFlink printed for it.

Two differences are allowed: PyFlink prefixes lines with the subtask (`1> `) at its
parallelism, and records of different keys may come in another order. Each key's records
keep theirs: lines are compared grouped by all but their last field (the key of the
records these programs print), in order.
"""

import re


def lines_of(text):
    return [re.sub(r"^\d+> ", "", line) for line in text.splitlines() if line]


def by_key(lines):
    groups = {}
    for line in lines:
        groups.setdefault(line.rsplit(",", 1)[0], []).append(line)
    return groups


def assert_same_records(weir, flink):
    assert sorted(weir) == sorted(flink)
    assert by_key(weir) == by_key(flink)
