"""A local DSE worker process: `python -m allo.dse.worker`.

Reads length-prefixed pickled requests on stdin and writes replies on the original stdout
(anything the process prints goes to stderr instead, so it cannot corrupt the channel).

Requests: `("eval", key, blob_or_None, settings, chunk)` -> `("ok", [(index, result), ...])`;
`("stop",)` or end of input ends the process. The base kernel's pickled IR (`blob`) is sent
with the first request for a key and cached here.
"""
from __future__ import annotations

import os
import sys

from .evaluate import evaluate_chunk
from .wire import read_message, write_message


def main() -> int:
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints of any library go to stderr

    requests = sys.stdin.buffer
    while True:
        msg = read_message(requests)
        if msg is None or msg[0] == "stop":
            return 0
        _, key, blob, settings, chunk = msg
        try:
            write_message(channel, ("ok", evaluate_chunk(key, blob, settings, chunk)))
        except KeyError:
            write_message(channel, ("need_base", key))


if __name__ == "__main__":
    sys.exit(main())
