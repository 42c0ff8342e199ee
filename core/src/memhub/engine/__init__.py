"""The engine: write pipeline, retrieval, lifecycle, history, digest.

Grouped by path; a group uses the modules here and those below the engine (store, embed,
providers, models, scope, redact, ids), never a face above it (client, records, remote):

- ``write/``: adds (extraction, judging, conflict resolution) and procedure writes.
- ``read/``: search and recall, the answer-shaped reads and the inspector's browsing.
- ``lifecycle/``: digest (consolidation) and erasure (forget a user, a thread).
- ``transfer/``: export, import and the mem0 converter.

This folder holds what every group shares: the ``Engine`` (``core``), its owner loop, the
payload and record helpers, access keys, filters, dates and valid time, the audit log and
the memory graph (``hmg``: versions, corrections, governance, lineage). ``make lint``
checks this order (the import contracts in ``.importlinter``).
"""
