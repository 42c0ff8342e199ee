"""Turning retrieved memories into prompt text."""
