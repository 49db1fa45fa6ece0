"""The local worker channel: length-prefixed pickled messages over a pipe."""
from __future__ import annotations

import pickle
import struct

HEADER = struct.Struct("<Q")


def read_message(stream):
    """The next message, or None at the end of the stream (or a cut message)."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (n,) = HEADER.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)


def write_message(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()
