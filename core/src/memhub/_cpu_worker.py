"""A worker process of ``memhub.cpu``: runs pickled calls sent over its stdin.

Started as ``python -c 'from memhub._cpu_worker import main; main()'``, not through
``multiprocessing``, whose ``spawn`` re-runs the parent's main script in every worker: a
server started from a script without a ``__main__`` guard would start itself again. Each message is
a 4-byte length and a pickle: ``(fn, args, kwargs)`` in, ``(ok, result or error)``
out. The worker ends when its stdin closes, which is also when its parent dies.
"""

from __future__ import annotations

import pickle
import signal
import struct
import sys
from typing import IO, Any

_HEADER = struct.Struct("!I")


def send(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next message; ``EOFError`` when the other side has gone."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which ends us
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # the protocol owns stdout
    while True:
        try:
            fn, args, kwargs = receive(requests)
        except EOFError:
            return
        try:
            reply: tuple[bool, Any] = (True, fn(*args, **kwargs))
        except Exception as err:  # sent back to be raised in the parent
            reply = (False, err)
        try:
            send(replies, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            send(replies, (False, RuntimeError(f"cannot send the result back: {err!r}")))
