"""Built-in example programs (used by `tcc demo` and the tests)."""

from importlib.resources import files


def example_source(name: str) -> str:
    """Text of the built-in example `name` (e.g. "bias_gelu")."""
    path = files(__package__) / f"{name}.mlir"
    if not path.is_file():
        available = sorted(p.name.removesuffix(".mlir") for p in files(__package__).iterdir()
                           if p.name.endswith(".mlir"))
        raise ValueError(f"no built-in example {name!r}; available: {', '.join(available)}")
    return path.read_text()
