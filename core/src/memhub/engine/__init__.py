"""The engine: write pipeline, retrieval, lifecycle, history, digest."""
