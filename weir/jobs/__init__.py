"""Jobs beyond one program run: the job directory, their processes, their lifecycle
(what the `weir` command and the REST API manage)."""
