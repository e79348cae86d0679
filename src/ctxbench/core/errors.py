"""The one kind of error a user sees: a single line and a non-zero exit."""


class UserError(Exception):
    """A problem with the user's input or environment, printed as one line."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
