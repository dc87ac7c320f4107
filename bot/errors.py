"""The few exceptions that steer control flow, each mapped to an exit code by the CLI."""


class UserError(Exception):
    """Bad input or configuration: a one-line message, exit code 2."""

    exit_code = 2


class ModelUnavailable(Exception):
    """The model service failed after the SDK's retries: exit code 3."""

    exit_code = 3
