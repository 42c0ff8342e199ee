"""The read path: ``read`` (search, get, list, as-of reads), ``telling`` (which memory answers
a question best) and ``browse`` (the inspector's pages of memories and events). Reads
change nothing but access marks.
"""
