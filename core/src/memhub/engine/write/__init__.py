"""The write path: ``write`` (``add``: messages to memories through extraction, the judge and
conflict resolution) and ``procedure_write`` (procedures learned from a run). Uses the
engine's shared modules and ``lifecycle.digest`` (an add marks what a digest will revisit).
"""
