"""Reading a Qdrant Edge shard's files ahead of a long scroll (``EdgeStore.prefetch``).

A shard maps its files and reads them at random, a 4 kB page per fault: Qdrant asks the
system for no readahead on its maps, and drops their pages from the page cache when it
opens and closes a shard (``Memory.Cold``, the default of ``EdgeStore``'s shards). So the
first export of a 100k store in a process took 31k page faults of the disk: 8.2-8.8 s of
wall where the same export, its pages cached, took 5.1 s. Reading the files through
once, in large sequential reads, put them in the page cache in 0.25 s (220 MB of files,
most of their size holes) and left 9 faults (bench/README.md, "Seventh round").

It must be done before the scroll, not beside it: the binding holds the GIL while it
scrolls, so a thread reading meanwhile read almost nothing, and the system's own
readahead (``posix_fadvise(WILLNEED)``) is asynchronous and was overtaken by the scroll
(14.6k faults left).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

_CHUNK = 1 << 20
_SCROLLED = ("payload_storage", "payload_index", "id_tracker", "mutable_id_tracker")
"""What a scroll of a segment reads: its payloads, the payload indexes its filter asks,
and the map between internal and point ids."""


def scrolled_files(shard: Path, vectors: bool) -> list[Path]:
    """The files of ``shard``'s segments a scroll reads (``vectors``: one reading them too:
    their originals, not the int8 copies queries score with)."""
    out = []
    for segment in sorted((shard / "segments").glob("*")):
        for path in sorted(segment.rglob("*")):
            part = path.relative_to(segment).parts[0]
            wanted = part.startswith(_SCROLLED) or (
                vectors and part.startswith("vector_storage") and "quantized" not in path.name
            )
            if wanted and path.is_file():
                out.append(path)
    return out


def read_ahead(paths: Iterable[Path], budget: int) -> int:
    """Read ``paths`` through so that the page cache holds them, at most ``budget`` bytes
    (past that, the first pages read would be evicted before the scroll reaches them);
    the number of bytes read. A file gone meanwhile is passed over."""
    buffer = memoryview(bytearray(_CHUNK))
    done = 0
    for path in paths:
        if done >= budget:
            break
        try:
            with path.open("rb", buffering=0) as f:
                for start, end in _extents(f.fileno()):
                    f.seek(start)
                    while start < end and done < budget:
                        got = f.readinto(buffer[: min(_CHUNK, end - start, budget - done)])
                        if not got:
                            break
                        start += got
                        done += got
        except OSError:
            continue
    return done


def _extents(fd: int) -> Iterator[tuple[int, int]]:
    """The ranges of the file that hold data: a segment's files are mostly holes (a 32 MB
    payload page holding 13 MB), which the system tells apart where it can."""
    size = os.fstat(fd).st_size
    if not hasattr(os, "SEEK_DATA"):
        yield 0, size
        return
    at = 0
    while at < size:
        try:
            start = os.lseek(fd, at, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
        except OSError as err:  # ENXIO: no data past ``at``; else no way to tell: read it all
            if at == 0 and err.errno != errno.ENXIO:
                yield 0, size
            return
        yield start, end
        at = end


def budget() -> int:
    """A quarter of this machine's memory (1 GB where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (AttributeError, ValueError, OSError):
        return 1 << 30
