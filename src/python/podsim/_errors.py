"""podsim's Python exceptions (docs/python.md, "Errors").

Error
 +-- InputError     bad input: a file, a field or an override breaks a rule
 |                  (the CLI's exit 2); .diagnostics lists every problem
 +-- UsageError     a bad argument (an unknown network model, options that
 |                  exclude each other; the CLI's exit 2)
 +-- LimitError     a run went past max_events, max_memory_mb or
 |                  max_wall_seconds (the CLI's exit 1)
 +-- InternalError  a bug in podsim (the CLI's exit 3): please report it
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem in an input: where it is and what is wrong.

    file: the file as named (or "<embedded:...>", or "--set"); may be empty.
    line, column: 1-based, 0 when unknown. field: the field path, such as
    "torus.dims[1].size"; empty when unknown. reason: what is wrong.
    """

    file: str
    line: int
    column: int
    field: str
    reason: str
    text: str = ""  # "file:line:column: field: reason", as the CLI prints it

    def __str__(self):
        return self.text or self.reason


class Error(Exception):
    """Every error podsim raises."""

    def __init__(self, message, diagnostics=(), result=None):
        super().__init__(message)
        self.message = message
        self.diagnostics = [
            d if isinstance(d, Diagnostic) else Diagnostic(**d) for d in diagnostics
        ]
        self._result = result

    @property
    def result(self):
        """For podsim.run(): the podsim.Result (status invalid, with what
        is known of the inputs) that `podsim run --format binpb` prints;
        None otherwise."""
        if self._result is None:
            return None
        from podsim import result_pb2

        r = result_pb2.Result()
        r.ParseFromString(self._result)
        return r


class InputError(Error):
    """Bad input; .diagnostics holds one Diagnostic per problem found."""


class UsageError(Error):
    """A bad argument to a podsim function."""


class LimitError(Error):
    """A run stopped at a limit on its work (max_events, max_memory_mb,
    max_wall_seconds)."""


class InternalError(Error):
    """A bug in podsim."""
