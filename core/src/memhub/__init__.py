"""memhub: long-term memory for AI agents."""
