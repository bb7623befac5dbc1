"""A base for users' own exactly-once sinks: Flink's TwoPhaseCommitSinkFunction, mapped
onto weir's micro-batch commit (Java-only in Flink; PyFlink has no such class).

Each task that writes the sink's records of a micro-batch opens one transaction
(`begin_transaction`), writes every record into it (`invoke`) and, once it has written
them all, makes it durable but not yet visible (`pre_commit`). The transaction, which must
be picklable (an id, a path, a small dataclass), then travels to the driver; once every
task of the micro-batch has pre-committed, the driver calls `commit` for each, before the
micro-batch commits. A task that fails calls `abort`.

A crash between `commit` and the micro-batch's own commit replays the batch: the tasks
open and pre-commit new transactions for the same records, and `commit` runs again for
those. Make the external system's commit idempotent per (batch, task) — the
transaction carries both (`TransactionContext`) — as Flink asks of `commit` after a
recovery.

    class FilesSink(TwoPhaseCommitSinkFunction):
        def begin_transaction(self, context):
            return {"tmp": f"/data/.{context.batch_id}-{context.task}", "rows": []}
        def invoke(self, transaction, value, context):
            transaction["rows"].append(value)
        def pre_commit(self, transaction):
            ...  # write transaction["rows"] to transaction["tmp"], fsync
        def commit(self, transaction):
            ...  # rename tmp to its final name (already renamed: nothing to do)
        def abort(self, transaction):
            ...  # remove tmp

    stream.add_sink(FilesSink())
"""

from weir.runtime.connectors.two_phase_commit import (  # noqa: F401
    TransactionContext,
    TwoPhaseCommitSpec,
)


class TwoPhaseCommitSinkFunction:
    """Override begin_transaction, invoke, pre_commit, commit and abort (see the module's
    doc). The function is pickled to every task that writes records and to the driver."""

    def begin_transaction(self, context: TransactionContext):
        raise NotImplementedError

    def invoke(self, transaction, value, context: TransactionContext) -> None:
        raise NotImplementedError

    def pre_commit(self, transaction) -> None:
        """Make the transaction's writes durable, not yet visible."""

    def commit(self, transaction) -> None:
        raise NotImplementedError

    def abort(self, transaction) -> None:
        """Drop the transaction's writes (the task failed)."""

    def sink_spec(self) -> "TwoPhaseCommitSpec":
        return TwoPhaseCommitSpec(self)
