"""PyFlink's `pyflink.util.java_utils`, for what programs copied from blogs do with it:

    config = Configuration(j_configuration=get_j_env_configuration(
        env._j_stream_execution_environment))
    config.set_integer("python.fn-execution.bundle.size", 10)

weir has no JVM-side environment: `env._j_stream_execution_environment` is a handle on the
environment itself, and the configuration it gives is the environment's own (what is set
there is the job's setting, as in PyFlink). Other Java helpers are not there."""

from weir.common.configuration import Configuration
from weir.common.gaps import module_gaps


def get_j_env_configuration(j_env) -> Configuration:
    """The configuration of the environment `j_env` is the handle of."""
    configuration = getattr(j_env, "configuration", None)
    if not isinstance(configuration, Configuration):
        raise TypeError(
            f"get_j_env_configuration takes env._j_stream_execution_environment, got {j_env!r}"
        )
    return configuration


__getattr__ = module_gaps(
    __name__,
    "pyflink.util.java_utils",
    [
        "add_jars_to_context_class_loader",
        "add_to_classpath",
        "create_url_class_loader",
        "get_field",
        "get_field_value",
        "invoke_method",
        "is_instance_of",
        "load_java_class",
        "set_field",
        "to_j_explain_detail_arr",
        "to_jarray",
    ],
)
