#!/usr/bin/env bash
# The C unit tests of the IR library (tests/unit/*.c), one TAP stream.
. "$(dirname "$0")/lib.sh"
exec "$TXC_BIN/txc-unittest"
