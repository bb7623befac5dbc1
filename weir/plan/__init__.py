"""The job graph: one frozen node per operator, each with a uid."""

from weir.plan.graph import JobGraph, Node  # noqa: F401
