"""Python functions Spark runs per Arrow batch: fused stateless chains, key grouping."""

import itertools
from operator import itemgetter

from pyspark import TaskContext

from weir.plan.operators import build_chain
from weir.runtime.errors import wrap_user_error
from weir.runtime.chain import StatelessChain
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.key_groups import KeyGroupAssigner
from weir.runtime.wire import AFTER_WATERMARK, BEFORE_WATERMARK, PHASE_SHIFT, make_seq
from weir.spark.frames import (CLOCK_TAG, END_TAG, MAX_BUNDLE_RECORDS, Bundler, is_control,
                               loads)


def _partition_id() -> int:
    context = TaskContext.get()
    return context.partitionId() if context is not None else 0


_value, _timestamp = itemgetter(1), itemgetter(2)  # of a (seq, value, timestamp) record


class KeyGrouper:
    """Places main-output records in their key groups, naming the keyed operator on error."""

    def __init__(self, key_selector, max_parallelism, operator):
        self.key_selector = key_selector
        self.max_parallelism = max_parallelism
        self.operator = operator
        self._assign = None

    def key_groups(self, values) -> list:
        if self._assign is None:
            self._assign = KeyGroupAssigner(self.max_parallelism)
        try:  # an unhashable key fails in key_groups: also the key selector's error
            return self._assign.key_groups(list(map(self.key_selector, values)))
        except Exception as exc:
            raise wrap_user_error(exc, self.operator, self.key_selector) from exc

    def __getstate__(self):
        return {**self.__dict__, "_assign": None}


def chain_function(nodes, uids, job_parameters, key_grouper=None, tick_key_groups=0):
    """mapInArrow body: runs a fused chain of stateless nodes (possibly none) over bundles;
    with a key grouper, bundles its main output by key group for a keyed operator. With
    `tick_key_groups`, partition 0 also sends every key group a tick, so that each key group
    of an operator with timers runs in every micro-batch."""

    def run(batches):
        """The collector stays paused for the whole task (as in the Python source): paused
        per bundle, re-enabling it scanned every record the bundler still held."""
        freeze_long_lived()
        with paused_gc():
            yield from _run_all(batches)

    def _run_all(batches):
        chain = build_chain(nodes, uids) if nodes else StatelessChain([])
        producer = _partition_id()
        chain.open(subtask_index=producer, job_parameters=job_parameters)
        bundler = Bundler(keyed=key_grouper is not None)
        counter = 0
        for batch in batches:
            blobs = batch.column("_b").to_pylist()
            tags = batch.column("_tag").to_pylist()
            stamps = batch.column("_ts").to_pylist()
            for blob, tag, stamp in zip(blobs, tags, stamps):
                if tag == END_TAG:
                    bundler.add_end()
                    continue
                if is_control(tag) and tag != CLOCK_TAG:  # metrics pass on
                    bundler.add_control(tag, stamp)
                    continue
                if tag == CLOCK_TAG:
                    _pass_clock(bundler, stamp, key_grouper, tick_key_groups)
                    continue
                counter = _run_bundle(chain, loads(blob), producer, counter, bundler,
                                      key_grouper)
            if bundler.buffered >= MAX_BUNDLE_RECORDS:
                yield bundler.to_batch()
        if tick_key_groups and producer == 0:
            bundler.add_ticks(tick_key_groups)
        yield bundler.to_batch()
        chain.close()

    return run


def _pass_clock(bundler, clock, key_grouper, tick_key_groups):
    """A scripted clock reaches a keyed operator as ticks carrying it, else passes on."""
    if key_grouper is None:
        bundler.add_control(CLOCK_TAG, clock)
    elif tick_key_groups:
        bundler.add_ticks(tick_key_groups, clock)


def _run_bundle(chain, records, producer, counter, bundler, key_grouper):
    if not chain.steps:  # only key grouping: records keep their order keys
        groups = key_grouper.key_groups(list(map(_value, records)))
        bundler.add_all(None, groups, records)
        return counter
    for phase in (BEFORE_WATERMARK, AFTER_WATERMARK):
        selected = [record for record in records if record[0] >> PHASE_SHIFT == phase]
        if not selected:
            continue
        values, stamps, side = chain.run_columns(list(map(_value, selected)),
                                                 list(map(_timestamp, selected)))
        base = make_seq(phase, producer, counter)
        counter += len(values)
        groups = key_grouper.key_groups(values) if key_grouper else None
        bundler.add_all(None, groups, list(zip(itertools.count(base), values, stamps)))
        for tag, value, ts in side:
            bundler.add(tag, 0, (make_seq(phase, producer, counter), value, ts))
            counter += 1
    return counter
