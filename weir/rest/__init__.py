"""weir's REST API (Flink's shape) and its server: `weir server` (weir.rest.server)."""
