"""A job under a restart strategy (weir.common.restart_strategy): when it fails, it runs
again from its last checkpoint (a new Spark query on the same checkpoint, as a Spark user
restarts a query) after the strategy's delay, until the strategy gives up; its status
is RESTARTING meanwhile, and each failure joins its exception history."""

import shutil
import tempfile
import threading
import time

from weir.common.job import JobClient, JobExecutionError, JobStatus


class RestartingJob(JobClient):
    def __init__(self, env, submit, strategy):
        """`submit()` starts one run of the job on the environment's checkpoint."""
        self.env = env
        self.strategy = strategy
        self._submit = submit
        self._temporary = None
        if env.checkpoint_config.get_checkpoint_storage() is None:  # restarts need one
            self._temporary = tempfile.mkdtemp(prefix="weir-checkpoint-")
            env.checkpoint_config.set_checkpoint_storage_dir(self._temporary)
        self.current = submit()
        self.failures = []  # when each failure happened (ms)
        self.exceptions = []  # {"timestamp", "name", "message"} per failure
        self.restarts = 0
        self._restarting = False
        self._canceled = threading.Event()

    def __getattr__(self, name):  # trigger_savepoint, snapshot, ... of the current run
        return getattr(self.__dict__["current"], name)

    def get_job_id(self):
        return self.current.get_job_id()

    def get_job_status(self):
        return JobStatus.RESTARTING if self._restarting else self.current.get_job_status()

    def cancel(self):
        self._canceled.set()
        if not self._restarting:
            self.current.cancel()

    def wait(self, timeout_s=None):
        deadline = None if timeout_s is None else time.time() + timeout_s
        while True:
            try:
                status = self.current.wait(
                    None if deadline is None else max(0.0, deadline - time.time())
                )
            except JobExecutionError as error:
                if self._restart_after(error):
                    continue
                self._cleanup()
                if self._canceled.is_set():
                    return JobStatus.CANCELED
                raise
            if status.is_globally_terminal_state():
                self._cleanup()
            return status

    def _restart_after(self, error) -> bool:
        """Records the failure; runs the job again if the strategy says so."""
        now = int(time.time() * 1000)
        self.failures.append(now)
        self.exceptions.append(
            {"timestamp": now, "name": type(error).__name__, "message": str(error)}
        )
        delay = self.strategy.next_delay_ms(self.failures, now)
        if delay is None or self._canceled.is_set():
            return False
        self._restarting = True
        try:
            if self._canceled.wait(delay / 1000):
                return False
            job_id, self.env.job_id = self.env.job_id, self.current.get_job_id()
            try:
                self.current = self._submit()
            finally:
                self.env.job_id = job_id
            self.restarts += 1
            return True
        finally:
            self._restarting = False

    def get_job_execution_result(self):
        self.wait()
        return self.current.get_job_execution_result()

    def _cleanup(self):
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
