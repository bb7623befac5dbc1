"""Task execution: what a task does with its rows, on every executor (the plan says
which tasks there are; an executor moves their rows and keeps their state)."""
