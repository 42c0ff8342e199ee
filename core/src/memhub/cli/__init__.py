"""The ``memhub`` command line (also installed as ``hmg``); see ``memhub --help``."""

from memhub.cli.app import main

__all__ = ["main"]
