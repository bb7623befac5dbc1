"""weir's own exceptions share one root, WeirError, and keep the built-in kind each was
(handlers written for those keep working)."""

import pytest

from weir.cep import MalformedPatternException
from weir.cli.commands import CommandError
from weir.common.errors import WeirError
from weir.common.job import JobExecutionError
from weir.common.row import FieldNotFoundError, Row
from weir.jobs.directory import JobNotFound
from weir.jobs.lifecycle import InvalidParallelism, LifecycleError
from weir.jobs.queryable import StateNotFound
from weir.rest.server import ServerError
from weir.runtime.errors import UserFunctionError
from weir.runtime.pickling import NotSerializable
from weir.runtime.state.evolution import StateMigrationError
from weir.runtime.state.savepoint import SavepointError


@pytest.mark.parametrize(
    "error, kind",
    [
        (MalformedPatternException, ValueError),
        (CommandError, RuntimeError),
        (JobExecutionError, RuntimeError),
        (FieldNotFoundError, KeyError),
        (FieldNotFoundError, ValueError),
        (JobNotFound, LookupError),
        (LifecycleError, RuntimeError),
        (InvalidParallelism, RuntimeError),
        (StateNotFound, LookupError),
        (ServerError, RuntimeError),
        (UserFunctionError, RuntimeError),
        (NotSerializable, TypeError),
        (StateMigrationError, RuntimeError),
        (SavepointError, ValueError),
    ],
)
def test_each_of_weirs_exceptions_is_a_weir_error_and_its_old_kind(error, kind):
    assert issubclass(error, WeirError) and issubclass(error, kind)


def test_a_missing_field_is_caught_as_a_weir_error():
    with pytest.raises(WeirError, match="nope"):
        Row(a=1)["nope"]
