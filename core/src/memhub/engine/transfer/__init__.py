"""Moving memories in and out: ``export`` and ``jsonl`` (the export format), ``transfer``
(import, idempotent by id, with ``_import_ids`` and ``_import_pipe``) and ``mem0`` (a mem0
store read as export lines).
"""
