"""Shared by every adapter's tests: ``multi_session`` (the stories) is importable from here."""
