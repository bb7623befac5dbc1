"""Comparing a program's output with what PyFlink printed for it.

Two differences are allowed: PyFlink prefixes lines with the subtask (`1> `, or
`name:1> ` for a named print) at its parallelism, and records of different keys may come
in another order. Each key's records keep theirs: lines are compared grouped by all but
their last field (the key of the records these programs print), in order.
"""

import re


def lines_of(text):
    lines = (
        re.sub(r"^(?:(\S+):)?\d+> ", lambda m: f"{m[1]}> " if m[1] else "", line)
        for line in text.splitlines()
        if line
    )
    return list(lines)


def by_key(lines):
    groups = {}
    for line in lines:
        groups.setdefault(line.rsplit(",", 1)[0], []).append(line)
    return groups


def assert_same_records(weir, flink):
    assert sorted(weir) == sorted(flink)
    assert by_key(weir) == by_key(flink)
