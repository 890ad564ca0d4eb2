"""Exceptions raised while building a tensor program (before any IR exists)."""


class FrontendError(Exception):
    """Base class of the builder's errors."""


class ShapeError(FrontendError, ValueError):
    """Operand shapes (or dims, permutations, ranks) are wrong for the op."""


class DTypeError(FrontendError, TypeError):
    """Element types are wrong for the op, or a dtype is unknown."""
