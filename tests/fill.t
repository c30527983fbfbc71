#!/usr/bin/env bash
# The random initial data of a buffer (emu_fill_random, which txc-emu and
# txc-run share): a large float buffer is filled in parts on several
# threads, each part starting where the one generator's sequence stands, so
# the data must not depend on the buffer's size or on where the parts
# begin. A buffer of 2^23 - 1 float16 elements is filled in one part; one
# of 3 x 2^22 in three (part boundaries at 2^22 and 2^23); the same name
# and seed must give the same first 2^23 - 1 elements, so the boundary at
# 2^22 is crossed. And the seed still matters.
. "$(dirname "$0")/lib.sh"
kernel() { # kernel FILE N DTYPE
  printf 'from tvm.script import tir as T\n\n\n@T.prim_func\ndef k(A_ptr: T.handle):\n    A = T.match_buffer(A_ptr, (%s,), "%s")\n    T.device_entry()\n    T.cta_id([1])\n    T.thread_id([1])\n' "$2" "$3" >"$1"
}
# data FILE: the elements of a .npy file (after its header, whose length is
# in bytes 8-9)
data() { local h; h=$(od -An -t u2 -j 8 -N 2 "$1" | tr -d ' '); tail -c +$((10 + h + 1)) "$1"; }
differ() { ! cmp -s "$1" "$2"; }
for dt in float16:2 float32:4; do
  d=${dt%:*} w=${dt#*:}
  small=$((8388608 - 1)) large=$((3 * 4194304))
  kernel "$TMP/s.tx" $small "$d"
  kernel "$TMP/l.tx" $large "$d"
  "$TXC_BIN/txc-emu" "$TMP/s.tx" --out A="$TMP/s.npy" >/dev/null 2>"$TMP/err1"
  "$TXC_BIN/txc-emu" "$TMP/l.tx" --out A="$TMP/l.npy" >/dev/null 2>"$TMP/err2"
  "$TXC_BIN/txc-emu" "$TMP/l.tx" --seed 2 --out A="$TMP/l2.npy" >/dev/null 2>>"$TMP/err2"
  check "$d: a buffer of $small elements is written" [ -s "$TMP/s.npy" ]
  check "$d: one of $large elements is written" [ -s "$TMP/l.npy" ]
  check "$d: the large buffer begins with the small one, across a part boundary" \
    cmp -s <(data "$TMP/s.npy") <(data "$TMP/l.npy" | head -c $((small * w)))
  data "$TMP/l.npy" | head -c 4096 >"$TMP/p0"
  data "$TMP/l.npy" | tail -c +$((4194304 * w + 1)) | head -c 4096 >"$TMP/p1"
  check "$d: the parts do not repeat each other" differ "$TMP/p0" "$TMP/p1"
  check "$d: another seed, other data" differ "$TMP/l.npy" "$TMP/l2.npy"
done
done_testing
