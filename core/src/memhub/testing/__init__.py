"""Test doubles and the store conformance suite, shipped so users can test their own code."""

from memhub.testing.embedder import HashEmbedder
from memhub.testing.llm import ScriptedLLM

__all__ = ["HashEmbedder", "ScriptedLLM"]
