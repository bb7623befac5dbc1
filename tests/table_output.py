"""Comparing a Table program's output with what PyFlink printed for it.

Allowed differences: the subtask prefix of print lines (`2> `), the order of rows of
different keys (a key: a row's first field), the order of rows of an insert-only output,
and explain() output (weir prints its own plan). Everything else must be equal: tables' headers and
footers, each key's rows in
order with their row kinds, and every other line.
"""

import re

_EXPLAIN_STARTS = ("== Abstract Syntax Tree ==", "== weir plan ==")
# a print sink's row: `+I[...]`, after `2> `, `name> ` or `name:2> ` (its identifier and
# subtask, as Flink prefixes them)
_PRINTED = re.compile(r"^(?:\S+:)?(?:\d+> |\S+> )?([+-][IUD])\[(.*)\]$")


def _without_explains(lines):
    kept, explaining = [], False
    for line in lines:
        if line.startswith(_EXPLAIN_STARTS):
            explaining = True
            continue
        if explaining and (line.startswith("+----") or line.startswith("(")):
            explaining = False
        if not explaining:
            kept.append(line)
    return kept


def _key_of_cells(cells):
    return cells[1] if len(cells) > 1 and cells[0] in ("+I", "-U", "+U", "-D") else cells[0]


def segments(text):
    """The output as a list of segments: ('table', header, rows by key, count line),
    ('printed', rows by key, sorted rows) for a run of print-connector lines, ('line', x)."""
    lines = _without_explains([line for line in text.splitlines() if line.strip()])
    out, index = [], 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("+----"):
            end = index
            while not lines[end].endswith(" in set") and lines[end] != "Empty set":
                end += 1
            block = lines[index : end + 1]
            header = block[1]
            rows = [[c.strip() for c in r.strip("|").split("|")] for r in block[3:-2]]
            out.append(("table", header, _by_key(rows), sorted(map(tuple, rows)), block[-1]))
            index = end + 1
        elif _PRINTED.match(line):
            rows = []
            while index < len(lines) and _PRINTED.match(lines[index]):
                kind, body = _PRINTED.match(lines[index]).groups()
                rows.append([kind] + body.split(", "))
                index += 1
            out.append(("printed", _by_key(rows), sorted(map(tuple, rows))))
        else:
            out.append(("line", line))
            index += 1
    return out


def _by_key(rows):
    """Rows by key, in order; for an insert-only output (every row +I) the keys' rows
    as multisets: their order comes from how windows and timers of different groups
    fire, which differs with the parallelism (and between Flink and weir)."""
    if all(cells[0] == "+I" for cells in rows):
        rows = sorted(rows)
    groups = {}
    for cells in rows:
        groups.setdefault(_key_of_cells(cells), []).append(tuple(cells))
    return groups


def assert_same_output(weir, flink):
    assert segments(weir) == segments(flink)


def _final_rows(rows):
    """A changelog's final rows (a multiset): +I/+U add a row, -U/-D remove one."""
    final = []
    for cells in rows:
        kind, values = cells[0], tuple(cells[1:])
        if kind in ("+I", "+U"):
            final.append(values)
        else:
            final.remove(values)
    return sorted(final)


def assert_same_final_tables(weir, flink):
    """Tables compared on their header and final rows only (the changelog applied)."""

    def finals(text):
        out = []
        for segment in segments(text):
            if segment[0] == "table":
                out.append(
                    (
                        segment[1],
                        _final_rows([row for group in segment[2].values() for row in group]),
                    )
                )
            else:
                out.append(segment)
        return out

    assert finals(weir) == finals(flink)
