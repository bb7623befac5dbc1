"""The tasks' and the driver's side of a user's TwoPhaseCommitSinkFunction
(weir.datastream.connectors.two_phase_commit): one transaction per task and micro-batch,
pre-committed by the task, committed by the driver."""

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from weir.runtime.connectors.sink_base import BatchWriter
from weir.runtime.errors import call_user


@dataclass(frozen=True)
class TransactionContext:
    """Where a transaction belongs: the sink's uid, the job (the same across restores of
    its checkpoint), the micro-batch and the task writing it."""

    uid: str
    job: str
    batch_id: int
    task: int


class TwoPhaseCommitSpec:
    """A TwoPhaseCommitSinkFunction as a sink the tasks write (connectors.sink_base); its
    committables are (context, pre-committed transaction) pairs."""

    executor_side = True

    def __init__(self, function: Any) -> None:
        self.function = function

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter:
        return _TransactionWriter(self.function, TransactionContext(uid, job, batch_id, task))

    def commit(self, batch_id: int, committables: List[Tuple[TransactionContext, Any]]) -> None:
        for context, transaction in committables:
            call_user(context.uid, self.function.commit, transaction)


class _TransactionWriter(BatchWriter):
    """One task's transaction of one micro-batch, begun with its first record."""

    def __init__(self, function: Any, context: TransactionContext) -> None:
        super().__init__(context.uid, context.job, context.batch_id, context.task)
        self.function = function
        self.context = context
        self.transaction: Any = None  # the user's transaction, once begun
        self.begun = False

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        uid, context = self.uid, self.context
        if not self.begun:
            self.transaction = call_user(uid, self.function.begin_transaction, context)
            self.begun = True
        invoke = self.function.invoke
        for value in values:
            call_user(uid, invoke, self.transaction, value, context)
        self.written += len(values)

    def finish(self) -> List[Tuple[TransactionContext, Any]]:
        if not self.begun:
            return []
        call_user(self.uid, self.function.pre_commit, self.transaction)
        return [(self.context, self.transaction)]

    def abort(self) -> None:
        if self.begun:
            call_user(self.uid, self.function.abort, self.transaction)
