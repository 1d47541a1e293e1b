"""srcad's version (one place: the package, generated headers and the CLI read it)."""
__version__ = "0.1.0"
