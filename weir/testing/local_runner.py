"""The in-process runner: runs a whole plan without Spark, batch by batch, as Spark would.

Each micro-batch reads every source from its last offset to its latest, moves records
through the operators in plan order and writes the sinks. The watermark of a batch is, as
on Spark, the minimum over watermark nodes of (largest timestamp seen in earlier batches
minus the bound). Keyed operators run the same key-group code as on Spark.
"""

import time
import uuid
from collections import defaultdict

from weir.plan import graph as g
from weir.plan.job import JobClient, JobExecutionResult, JobStatus
from weir.plan.operators import build_chain, build_keyed_operator, output_validator
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.records import (AFTER_WATERMARK, BEFORE_WATERMARK, END_OF_INPUT_TS, END_SEQ,
                                  METRIC_PREFIX, PHASE_SHIFT, engine_watermark_to_flink,
                                  make_seq)
from weir.runtime.sink_writers import write_batch
from weir.runtime.sources import END_SPLIT
from weir.runtime.state.backend import TIMER_PAGE, KeyedStateBackend, MemoryPageStore

END = "\x00end"  # tag of the end-of-input control record
WM = "\x00wm"  # a scripted source's watermark for the next batch


class _Source:
    def __init__(self, node):
        self.reader = node.param("reader")
        self.offset = self.reader.initial_offset()
        self.next = None

    def poll(self):
        self.next = self.reader.latest_offset(self.offset)
        return self.next != self.offset

    def clock(self):
        """The processing time of the next batch on a scripted source's clock, or None."""
        if not hasattr(self.reader, "processing_time"):
            return None
        splits = [s for s in self.reader.splits(self.offset, self.next) if s != END_SPLIT]
        return self.reader.processing_time(splits[0]) if splits else None

    def read(self):
        records = []
        for split in self.reader.splits(self.offset, self.next):
            if split == END_SPLIT:
                records.append((END_SEQ, END, None, END_OF_INPUT_TS))
                continue
            if hasattr(self.reader, "announced_watermark"):
                watermark = self.reader.announced_watermark(split)
                if watermark is not None:
                    records.append((END_SEQ, WM, None, watermark))
            index, *bounds = split
            rows = self.reader.read_files(*bounds) if len(bounds) == 1 else self.reader.read(
                *bounds)
            for counter, (value, ts) in enumerate(rows):
                records.append((make_seq(AFTER_WATERMARK, index, counter), None, value, ts))
        self.offset = self.next
        return records


class _Keyed:
    def __init__(self, node, uid, env):
        self.node = node
        self.stores = defaultdict(MemoryPageStore)
        backend = KeyedStateBackend(lambda kg: self.stores[kg], env.max_parallelism)
        self.operator = build_keyed_operator(node, uid, backend, env.parallelism,
                                             job_parameters=env.job_parameters)
        self.operator.open()
        self.key_selector = node.param("key_selector")
        self.max_parallelism = env.max_parallelism
        self.validate = output_validator(node, uid)

    def run(self, records, watermark, processing_time):
        groups = defaultdict(list)
        ends = []
        for record in records:
            if record[1] == END:
                ends.append(record)
            elif record[1] is None:
                key = self.key_selector(record[2])
                groups[self.operator.backend.key_group_of(key)].append(
                    (record[0], record[2], record[3]))
        for kg, store in self.stores.items():
            if TIMER_PAGE in store.pages:
                groups.setdefault(kg, [])
        out = []
        for kg in sorted(groups):
            rows = sorted(groups[kg], key=lambda r: r[0])
            out.extend(process_key_group_batch(self.operator, self.key_selector, kg, rows,
                                               watermark, processing_time, self.validate))
            self.operator.release()
        return out + ends


class LocalJob(JobClient):
    def __init__(self, env, graph, sinks, job_name):
        self.job_id = uuid.uuid4().hex
        self.nodes = graph.upstream_of(sinks)
        self.uids = g.assign_uids(self.nodes)
        self.env = env
        self.status = JobStatus.CREATED
        self.batches = 0
        self.implicit = set(g.sources_without_watermarks(self.nodes))
        self.max_seen = {}
        self.watermark = 0
        self.clock = None
        self.metrics = defaultdict(int)
        self.started = time.time()

    # -- graph ---------------------------------------------------------------------
    def _open(self):
        self.sources, self.chains, self.keyed = {}, {}, {}
        for node in self.nodes:
            if node.kind == g.SOURCE:
                self.sources[node.id] = _Source(node)
            elif node.kind == g.STATELESS:
                chain = build_chain([node], self.uids)
                chain.open(job_parameters=self.env.job_parameters)
                self.chains[node.id] = chain
            elif node.kind == g.KEYED:
                self.keyed[node.id] = _Keyed(node, self.uids[node.id], self.env)

    def _observe(self, node_id, records, emits_watermarks):
        for _, tag, _, ts in records:
            if tag in (END, WM) or (emits_watermarks and tag is None and ts is not None):
                self.max_seen[node_id] = max(self.max_seen.get(node_id, ts), ts)

    def _node_output(self, node, inputs, batch_id, watermark, processing_time):
        if node.kind == g.SOURCE:
            records = self.sources[node.id].read()
            if node.id in self.implicit:
                self._observe(("implicit", node.id), records, False)
            return records
        if node.kind == g.STATELESS:
            return self._run_chain(node, inputs)
        if node.kind == g.WATERMARK:
            strategy = node.param("strategy")
            self._observe(node.id, inputs,
                          strategy.emits_watermarks and not self.env.is_batch_mode())
            return inputs
        if node.kind == g.KEYED:
            outputs = self.keyed[node.id].run(inputs, watermark, processing_time)
            return self._count_metrics(self.uids[node.id], outputs)
        if node.kind == g.UNION:
            return inputs
        if node.kind == g.SIDE_OUTPUT:
            tag_id = node.param("tag_id")
            return [(s, None if t == tag_id else t, v, ts) for s, t, v, ts in inputs
                    if t in (tag_id, END)]
        if node.kind == g.SINK:
            write_batch(node.param("sink"), [v for _, t, v, _ in inputs if t is None], batch_id)
            return []
        raise ValueError(f"unknown node kind {node.kind}")

    def _count_metrics(self, uid, outputs):
        kept = []
        for record in outputs:
            tag = record[1]
            if tag is not None and tag.startswith(METRIC_PREFIX):
                self.metrics[f"{uid}.{tag[len(METRIC_PREFIX):]}"] += 1
            else:
                kept.append(record)
        return kept

    def _run_chain(self, node, inputs):
        """Runs the chain per phase, so each output keeps its input's phase."""
        passthrough = [r for r in inputs if r[1] is not None]
        records = []
        for phase in (BEFORE_WATERMARK, AFTER_WATERMARK):
            main = [(v, ts) for seq, tag, v, ts in inputs
                    if tag is None and seq >> PHASE_SHIFT == phase]
            if not main:
                continue
            out, side = self.chains[node.id].run(main)
            produced = [(None, v, ts) for v, ts in out] + list(side)
            records += [(make_seq(phase, 0, len(records) + i), t, v, ts)
                        for i, (t, v, ts) in enumerate(produced)]
        return records + passthrough

    # -- batches -------------------------------------------------------------------
    def _delay(self, key):
        if isinstance(key, tuple):
            return 0
        strategy = next(n for n in self.nodes if n.id == key).param("strategy")
        if not strategy.emits_watermarks:  # only control records, which carry it exactly
            return 0
        return (strategy.out_of_orderness_ms or 0) + 1

    def _next_watermark(self):
        if self.max_seen:
            candidate = min(ts - self._delay(k) for k, ts in self.max_seen.items())
            self.watermark = max(self.watermark, candidate)
        return self.watermark

    def _run_batch(self, batch_id):
        watermark = engine_watermark_to_flink(self._next_watermark())
        clocks = [c for c in (s.clock() for s in self.sources.values()) if c is not None]
        self.clock = max(clocks) if clocks else self.clock
        processing_time = self.clock if self.clock is not None else int(time.time() * 1000)
        outputs = {}
        for node in self.nodes:
            inputs = []
            for input_id in node.inputs:
                inputs.extend(r for r in outputs[input_id])
            outputs[node.id] = self._node_output(node, inputs, batch_id, watermark,
                                                 processing_time)

    def run(self):
        self.status = JobStatus.RUNNING
        self._open()
        batch_id = 0
        last_watermark = self.watermark
        while True:
            has_data = [s.poll() for s in self.sources.values()]
            if any(has_data):
                self._run_batch(batch_id)
            elif self.keyed and self._next_watermark() > last_watermark:
                self._run_batch(batch_id)
            elif all(s.reader.bounded for s in self.sources.values()):
                break
            else:
                time.sleep(0.05)
                continue
            last_watermark = self.watermark
            batch_id += 1
        self.batches = batch_id
        for keyed in self.keyed.values():
            keyed.operator.close()
        for chain in self.chains.values():
            chain.close()
        self.status = JobStatus.FINISHED

    # -- JobClient -----------------------------------------------------------------
    def get_job_id(self):
        return self.job_id

    def get_job_status(self):
        return self.status

    def cancel(self):
        self.status = JobStatus.CANCELED

    def wait(self, timeout_s=None):
        return self.status

    def get_job_execution_result(self):
        return JobExecutionResult(self.job_id, int((time.time() - self.started) * 1000),
                                  self.batches, self.metrics)


def submit(env, graph, sinks, job_name):
    job = LocalJob(env, graph, sinks, job_name)
    job.run()
    return job
