"""PyFlink's JDBC connector (`pyflink.datastream.connectors.jdbc`): not in weir yet; each
name raises NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.connectors.jdbc", [
    "JdbcSink", "JdbcConnectionOptions", "JdbcExecutionOptions"])
