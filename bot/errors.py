"""The few exceptions that steer control flow, each mapped to an exit code by the CLI, and the
one way a command warns on the terminal."""

import sys


class UserError(Exception):
    """Bad input or configuration: a one-line message, exit code 2."""

    exit_code = 2


class ModelUnavailable(Exception):
    """The model service failed after the SDK's retries: exit code 3."""

    exit_code = 3


def warn(text: str) -> None:
    """A warning for a person at a terminal: stderr, so it never mixes with a command's output."""
    print(f"autofix: warning: {text}", file=sys.stderr)
