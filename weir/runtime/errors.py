"""Errors raised by user functions, named by operator and user source line."""

import os
import re
import traceback
from traceback import FrameSummary
from typing import Any, Callable, List, Optional

from weir.common.errors import WeirError

_WEIR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = "WeirUserFunctionError"


class UserFunctionError(WeirError, RuntimeError):
    """A user function raised: the message names the operator and the user's file and line."""

    def __init__(self, message: str):
        super().__init__(message)


def user_frame(exc: BaseException) -> Optional[FrameSummary]:
    """The innermost traceback frame outside weir (the user's line), or None."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if not os.path.abspath(frame.filename).startswith(_WEIR_DIR + os.sep):
            return frame
    return None


def _in_weir(function: Any) -> bool:
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return code is not None and os.path.abspath(code.co_filename).startswith(_WEIR_DIR + os.sep)


def users_function(function: Any) -> Any:
    """The user's function behind weir's adapters (which hold it as `call` or
    `user_function`): what an error should name."""
    while _in_weir(function):
        owner = getattr(function, "__self__", None)
        inner = getattr(owner, "call", None) or getattr(owner, "user_function", None)
        if inner is None or inner is function:
            break
        function = inner
    return function


def describe_function(function: Any) -> str:
    function = users_function(function)
    target = getattr(function, "__func__", function)
    code = getattr(target, "__code__", None)
    name = getattr(target, "__qualname__", type(function).__name__)
    if code is None:
        return name
    return f"{name} ({code.co_filename}:{code.co_firstlineno})"


def marked_message(text: str) -> str:
    """The user-facing cause in an engine's error text: weir's marked message (the first
    line after MARKER); else the exception the last Python traceback in it ends with (a
    failure inside weir or the engine), the whole text kept in a log file the message
    names; else the text's first line."""
    match = re.search(re.escape(MARKER) + r": (.*)", text)
    if match:
        return match.group(1).strip()
    causes = _traceback_ends(text)
    first = text.strip().splitlines()[0] if text.strip() else text
    if not causes and len(text) <= MAX_CAUSE:
        return text
    kept = _keep(text)
    return f"{causes[-1] if causes else first[:MAX_CAUSE]} (the full trace: {kept})"


MAX_CAUSE = 500  # a cause longer than this is cut (the whole text is kept in a file)


def _traceback_ends(text: str) -> List[str]:
    """The exception line ending each Python traceback in `text`."""
    ends, lines = [], text.splitlines()
    for index, line in enumerate(lines):
        if not line.rstrip().endswith("Traceback (most recent call last):"):
            continue
        for later in lines[index + 1 :]:
            if later and not later[0].isspace():
                ends.append(later.strip()[:MAX_CAUSE])
                break
    return ends


def _keep(text: str) -> str:
    """Writes `text` to a file of its own in the temporary directory; returns its path."""
    import tempfile

    handle, path = tempfile.mkstemp(prefix="weir-failure-", suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def source_error(exc: BaseException, source: str) -> UserFunctionError:
    """A source failed to read its input (the cause names the file and line if any)."""
    return UserFunctionError(f"{MARKER}: source '{source}' failed: {type(exc).__name__}: {exc}")


def call_user(operator: str, method: Callable[..., Any], *args: Any) -> Any:
    """Calls user code of `operator`; an error names it and the user's file and line."""
    try:
        return method(*args)
    except UserFunctionError:
        raise
    except Exception as exc:
        raise wrap_user_error(exc, operator, method) from exc


def wrap_user_error(
    exc: BaseException, operator: str, function: Any, side: Optional[str] = None
) -> UserFunctionError:
    """The error of a user function of `operator` (on its `side` input, if named)."""
    frame = user_frame(exc)
    where = f"{frame.filename}:{frame.lineno}" if frame else "unknown location"
    on_side = f" ({side} input)" if side else ""
    message = (
        f"{MARKER}: operator '{operator}'{on_side} failed in user function "
        f"{describe_function(function)} at {where}: {type(exc).__name__}: {exc}"
    )
    return UserFunctionError(message)
