"""The control plane: what a micro-batch reported (watermarks, idle sources, timers, ends
of input) turned into what the next micro-batch needs, for every executor."""
