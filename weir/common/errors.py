"""The root of weir's own exceptions: `except WeirError` catches what weir raises of its
own (a user's function failing, a savepoint refused, a job not found, a malformed
pattern, ...), each also the built-in kind it always was (RuntimeError, ValueError,
LookupError, TypeError), so existing handlers keep working."""


class WeirError(Exception):
    """An error weir raises of its own."""
