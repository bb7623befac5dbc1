"""Python functions Spark runs per Arrow batch: fused stateless chains and key grouping."""

import pyarrow as pa
from pyspark import TaskContext

from weir.plan.operators import build_chain
from weir.runtime.key_groups import stable_key_hash
from weir.runtime.records import AFTER_WATERMARK, BEFORE_WATERMARK, PHASE_SHIFT, make_seq
from weir.spark.frames import END_TAG, dumps, loads, stream_columns, to_record_batch


def _partition_id() -> int:
    context = TaskContext.get()
    return context.partitionId() if context is not None else 0


def chain_function(nodes, uids, job_parameters):
    """mapInArrow body of a fused chain of stateless nodes."""

    def run(batches):
        chain = build_chain(nodes, uids)
        producer = _partition_id()
        chain.open(subtask_index=producer, job_parameters=job_parameters)
        counter = 0
        for batch in batches:
            values, timestamps, seqs, tags = stream_columns(batch)
            out_v, out_ts, out_seq, out_tag = [], [], [], []
            for phase in (BEFORE_WATERMARK, AFTER_WATERMARK):
                items = [(loads(v), ts) for v, ts, seq, tag in zip(values, timestamps, seqs, tags)
                         if tag is None and seq >> PHASE_SHIFT == phase]
                if not items:
                    continue
                main, side = chain.run(items)
                for tag, (value, ts) in [(None, m) for m in main] + [
                        (t, (v, ts)) for t, v, ts in side]:
                    out_v.append(dumps(value))
                    out_ts.append(ts)
                    out_seq.append(make_seq(phase, producer, counter))
                    out_tag.append(tag)
                    counter += 1
            for v, ts, seq, tag in zip(values, timestamps, seqs, tags):
                if tag == END_TAG:
                    out_v.append(v), out_ts.append(ts), out_seq.append(seq), out_tag.append(tag)
            yield to_record_batch(out_v, out_ts, out_seq, out_tag)
        chain.close()

    return run


KEYED_SCHEMA_DDL = "_v binary, _ts long, _seq long, _tag string, _kg int"


def key_group_function(key_selector, max_parallelism):
    """mapInArrow body adding each record's key group (END records go to key group 0)."""

    def run(batches):
        for batch in batches:
            values, _, _, tags = stream_columns(batch)
            groups = [0 if tag is not None else
                      stable_key_hash(key_selector(loads(v))) % max_parallelism
                      for v, tag in zip(values, tags)]
            yield pa.RecordBatch.from_arrays(
                batch.columns + [pa.array(groups, pa.int32())],
                names=batch.schema.names + ["_kg"])

    return run
