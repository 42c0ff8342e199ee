"""What happens to memories after they are written: ``digest`` (consolidating related
memories) and ``erase`` (forgetting a user: tombstones, threads and pending digests).
"""
