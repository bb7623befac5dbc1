"""A bench's results table: printed, and with --record written into docs/benchmarks.md.

Each bench owns one block of docs/benchmarks.md, between `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->`. Recording replaces that block with a dated heading, the weir
revision measured, and the table the bench just printed; a bench recorded for the first
time appends its block at the end of the file. Smoke runs print only: recording is asked
for with --record.
"""

import datetime
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "benchmarks.md")


def markdown_row(cells: list) -> str:
    """One line of a Markdown table (cells already formatted)."""
    return "| " + " | ".join(cells) + " |"


def markdown_table(header: list, rows: list) -> str:
    """A Markdown table of `header` and `rows` (lists of cells, already formatted); a bench
    that prints rows as they come prints the table of none, then each `markdown_row`."""
    return "\n".join(
        [markdown_row(header), "|" + "---|" * len(header)] + [markdown_row(cells) for cells in rows]
    )


def add_record_argument(parser):
    parser.add_argument(
        "--record", action="store_true", help="write this run's table into docs/benchmarks.md"
    )


class Report:
    """Collects the lines a bench prints as its result, to record them afterwards."""

    def __init__(self, name: str, title: str):
        self.name, self.title, self.lines = name, title, []

    def line(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.extend(text.split("\n"))

    def block(self, day: str, revision: str) -> str:
        body = "\n".join(self.lines).strip("\n")
        return (
            f"<!-- bench:{self.name} -->\n### {self.title}, {day} (weir {revision})\n\n"
            f"{body}\n<!-- /bench:{self.name} -->"
        )

    def record(self, path: str = DOCS, day: str = "", revision: str = "") -> None:
        block = self.block(day or datetime.date.today().isoformat(), revision or weir_revision())
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = replace_block(text, self.name, block)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"recorded in {os.path.relpath(path, ROOT)}")


def replace_block(text: str, name: str, block: str) -> str:
    pattern = re.compile(
        rf"<!-- bench:{re.escape(name)} -->\n.*?<!-- /bench:{re.escape(name)} -->", re.DOTALL
    )
    if pattern.search(text):
        return pattern.sub(lambda _: block, text, count=1)
    return text.rstrip("\n") + "\n\n" + block + "\n"


def weir_revision() -> str:
    """The commit of the weir being measured, marked dirty if its tree has changes."""
    import weir

    where = os.path.dirname(os.path.abspath(weir.__file__))
    try:
        head = subprocess.run(
            ["git", "-C", where, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", where, "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown revision"
    return head + (" with uncommitted changes" if dirty else "")
