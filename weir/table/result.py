"""TableResult: what `execute()`, `execute_sql` and `execute_insert` return; `print()`
writes Flink's tableau (boxed) table, `collect()` iterates Rows with their RowKind."""

import unicodedata
from typing import Optional

from weir.common.row import Row, RowKind
from weir.table.casts import to_sql_string
from weir.table.types import print_width

MAX_WIDTH = 30
NULL = "<NULL>"


class ResultKind:
    SUCCESS = "SUCCESS"
    SUCCESS_WITH_CONTENT = "SUCCESS_WITH_CONTENT"


class TableResult:
    def __init__(
        self,
        columns=None,
        records=None,
        streaming=True,
        job_client=None,
        kind=ResultKind.SUCCESS_WITH_CONTENT,
    ):
        self.columns = columns or []
        self.records = records or []  # [(kind, values)]
        self.streaming = streaming
        self._job_client = job_client  # an insert's job, running (execute_insert)
        self._kind = kind
        self._waited = False

    @staticmethod
    def ok():
        """The result of a statement that ran no job (DDL): Flink prints `OK`."""
        from weir.table.evaluate import Column
        from weir.table.types import DataTypes

        return TableResult(
            [Column("result", DataTypes.STRING())],
            [(0, ("OK",))],
            streaming=False,
            kind=ResultKind.SUCCESS,
        )

    def wait(self, timeout_ms: Optional[int] = None) -> None:
        """Waits for an insert's job to end (a failed job raises its error); writes the
        job's one-line summary to stderr, as execute() does."""
        if self._job_client is None or self._waited:
            return
        import sys
        from weir.common.job import JobExecutionError

        try:
            result = self._job_client.get_job_execution_result()
        except JobExecutionError as error:
            raise error.with_traceback(None) from None
        self._waited = True
        print(result.summary(), file=sys.stderr, flush=True)

    def get_job_client(self):
        """The insert's job (stop_with_savepoint, cancel, get_job_status...)."""
        return self._job_client

    def get_result_kind(self):
        return self._kind

    def get_table_schema(self):
        from weir.table.table import TableSchema

        return TableSchema(self.columns)

    def get_resolved_schema(self):
        from weir.table.table import TableSchema

        return TableSchema(self.columns, resolved=True)

    def collect(self):
        """The rows (PyFlink's CloseableIterator: `with result.collect() as rows:`)."""
        from weir.datastream.data_stream import CloseableIterator

        return CloseableIterator(self._rows())

    def _rows(self):
        """Rows without field names, nested ones too, as PyFlink's collect gives them
        (`<Row('a', 1)>`: read them by position)."""
        for kind, values in self.records:
            row = Row(*(_unnamed(v) for v in values))
            row.set_row_kind(RowKind(kind))
            yield row

    def print(self) -> None:
        if self._kind == ResultKind.SUCCESS:
            print("OK")
            return
        print(tableau(self.columns, self.records, self.streaming))


def _unnamed(value):
    if isinstance(value, Row):
        row = Row(*(_unnamed(v) for v in value))
        row.set_row_kind(value.get_row_kind())
        return row
    if isinstance(value, list):
        return [_unnamed(v) for v in value]
    return value


def _cell(value, data_type) -> str:
    return NULL if value is None else to_sql_string(value, data_type)


def display_width(text: str) -> int:
    """Columns a terminal gives `text`, as Flink's tableau counts them: a wide or
    full-width character (CJK) two, any other one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, width: int) -> str:
    """`text` right-aligned in `width` display columns, cut to end in "..." if wider."""
    if display_width(text) > width:
        while display_width(text) > width - 3:
            text = text[:-1]
        text += "..."
    return " " * (width - display_width(text)) + text


def tableau(columns, records, streaming: bool) -> str:
    """Flink's boxed table: column widths from the types (and names); in streaming mode
    an `op` column of row kinds first."""
    names = [c.name for c in columns]
    cells = [[_cell(v, c.data_type) for v, c in zip(values, columns)] for _, values in records]
    widths = [
        max(display_width(n), print_width(c.data_type, MAX_WIDTH), len(NULL))
        for n, c in zip(names, columns)
    ]
    if streaming:
        names = ["op"] + names
        widths = [2] + widths
        cells = [[str(RowKind(kind))] + row for (kind, _), row in zip(records, cells)]
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    line = lambda row: "| " + " | ".join(_fit(t, w) for t, w in zip(row, widths)) + " |"  # noqa: E731
    if not records:
        return "Empty set"
    lines = [border, line(names), border] + [line(r) for r in cells] + [border]
    count = len(records)
    lines.append(f"{count} row{'s' if count != 1 else ''} in set")
    return "\n".join(lines)
