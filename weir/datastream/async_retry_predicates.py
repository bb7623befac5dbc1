"""Ready-made retry predicates for AsyncRetryStrategy (PyFlink's names)."""


def empty_result_predicate(result: list) -> bool:
    """Retry when an attempt returned no results."""
    return result is None or len(result) == 0


def has_exception_predicate(error) -> bool:
    """Retry on any exception."""
    return error is not None


def exception_type_predicate(error, expected_error_type) -> bool:
    """Retry on exceptions of `expected_error_type` (bind it with functools.partial)."""
    return isinstance(error, expected_error_type)
