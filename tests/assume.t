#!/usr/bin/env bash
# T.assume(cond) before T.device_entry(): the caller's promise on scalar
# parameters (ranges and divisors) that the proofs use, checked when the
# kernel starts. A persistent loop with a run-time trip count
# (examples/copy_persistent.tx) is provable only with it; a divisor lets a
# run-time column start take 16-byte accesses; a broken promise stops the
# emulator with the values; malformed assumptions are refused at their token.
. "$(dirname "$0")/lib.sh"
EX=$TOP/examples/copy_persistent.tx
cd "$TMP" || exit 1

# ---- the persistent example: provable with the assumption, not without ----
"$TXC_BIN/txc" "$EX" -o p.cu 2>err; rc=$?
check "copy_persistent: compiles to CUDA" [ $rc = 0 ]
check "copy_persistent: the kernel checks the promise first" \
  grep -q 'if (!(0 <= ntiles && ntiles <= 2048)) __trap();' p.cu
check "copy_persistent: a loop from the CTA to ntiles by 1056" grep -q 'for (int t = bx; t < ntiles; t += 1056)' p.cu
"$TXC_BIN/txc" "$EX" --emit=ptx -o p.ptx 2>err
check "copy_persistent, txc-ptx: a trap unless the promise holds" grep -q '@!%p[0-9]* trap; // T.assume' p.ptx
grep -v 'T.assume' "$EX" >noassume.tx
"$TXC_BIN/txc" noassume.tx -o n.cu 2>err; rc=$?
check "without T.assume: refused" [ $rc = 1 ]
check "without T.assume: the tile's accesses cannot be bounded" grep -q "which txc cannot bound" err
sed 's/ntiles <= (4096 \/\/ TR) \* ACROSS/ntiles <= 2049/' "$EX" >over.tx
"$TXC_BIN/txc" over.tx -o o.cu 2>err; rc=$?
check "a bound one tile too many: refused" [ $rc = 1 ]
check "a bound one tile too many: the region past the tensor" grep -q "out of bounds\|reaches bytes" err

# ---- the emulator: the first ntiles tiles copied, the promise checked ----
"$TXC_BIN/txc" "$EX" --emit=ir -o p.ir 2>err
# row-major tiles of 16 x 512 float16, 8 to a row of tiles: 8 tiles (one
# row of tiles) are 16 rows, 16 x 4096 x 2 = 131072 bytes
data() { local h; h=$(od -An -t u2 -j 8 -N 2 "$1" | tr -d ' '); tail -c +$((10 + h + 1)) "$1"; }
for form in source:$EX lowered:p.ir; do
  f=${form#*:} what=${form%%:*}
  "$TXC_BIN/txc-emu" "$f" --arg ntiles=16 --out A=a.npy --out B=b.npy >/dev/null 2>err; rc=$?
  check "$what, ntiles=16: runs" [ $rc = 0 ]
  data a.npy | head -c 262144 >a0; data b.npy | head -c 262144 >b0
  data a.npy | tail -c +262145 | head -c 131072 >a1; data b.npy | tail -c +262145 | head -c 131072 >b1
  check "$what, ntiles=16: the first two rows of tiles copied" cmp -s a0 b0
  check "$what, ntiles=16: the third is not" sh -c '! cmp -s a1 b1'
  "$TXC_BIN/txc-emu" "$f" --arg ntiles=2049 >/dev/null 2>err; rc=$?
  check "$what, ntiles=2049: the emulator stops" [ $rc = 1 ]
  check "$what, ntiles=2049: names the assumption and the value" \
    grep -q ":[0-9]*:5: error: T.assume(0 <= ntiles and ntiles <= .*) does not hold for the values given (ntiles = 2049)" err
done

# ---- a divisor: a run-time column start with 16-byte accesses ----
kernel() { # kernel FILE ASSUMPTION
  cat >"$1" <<EOT
from tvm.script import tir as T
from tvm.script import tirx as Tx

@T.prim_func
def copy(A_ptr: T.handle, B_ptr: T.handle, c: T.int32):
    A = T.match_buffer(A_ptr, (16, 1024), "float16")
    B = T.match_buffer(B_ptr, (16, 1024), "float16")
    T.assume($2)
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    tile = T.alloc_shared((16, 256), "float16")
    Tx.cta.copy(tile[:, :], A[0:16, c : c + 256])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:16, c : c + 256], tile[:, :])
EOT
}
kernel d8.tx 'c >= 0 and c <= 768 and c % 8 == 0'
"$TXC_BIN/txc" d8.tx -o d8.cu 2>err
check "c % 8 == 0: 16-byte accesses" grep -q 'txc_copy_bytes_16(' d8.cu
kernel d1.tx 'c >= 0 and 768 >= c'
"$TXC_BIN/txc" d1.tx -o d1.cu 2>err
check "no divisor: 2-byte accesses" grep -q 'txc_copy_bytes_2(' d1.cu
check "no divisor: and no wider ones" sh -c '! grep -q "txc_copy_bytes_16(" d1.cu'
kernel d4.tx '0 <= c and c < 769 and c % 2 == 0 and c % 4 == 0'
"$TXC_BIN/txc" d4.tx -o d4.cu 2>err
check "c % 2 and c % 4: 8-byte accesses" grep -q 'txc_copy_bytes_8(' d4.cu
"$TXC_BIN/txc-emu" d8.tx --arg c=12 >/dev/null 2>err; rc=$?
check "c = 12 breaks c % 8 == 0: the emulator stops" [ $rc = 1 ]
check "c = 12: and says so" grep -q "does not hold for the values given (c = 12)" err
"$TXC_BIN/txc-emu" d8.tx --arg c=768 >out 2>err
check "c = 768: runs" [ -s out ]

# ---- malformed assumptions, each refused at its token ----
refuse() { # refuse NAME ASSUMPTION MESSAGE
  kernel bad.tx "$2"
  "$TXC_BIN/txc-parse" bad.tx >/dev/null 2>err; local rc=$?
  if [ $rc = 1 ] && grep -q "bad.tx:8:.*error: $3" err; then ok "refused: $1"; else
    not_ok "refused: $1 (exit $rc)"; diag <err; fi
}
refuse "not equal" 'c != 3' "T.assume() takes a conjunction"
refuse "or" 'c < 3 or c > 5' "T.assume() takes a conjunction"
refuse "two parameters" 'c < c' "T.assume() takes a conjunction"
refuse "no value left" 'c > 5 and c < 3' "T.assume(c > 5 and c < 3) can never hold: it leaves 'c' no value"
refuse "a zero divisor" 'c % 0 == 0' "the divisor of a scalar parameter in T.assume() must be positive"
refuse "past the dtype" 'c > 2147483647' "T.assume(c > 2147483647) can never hold"
sed 's/    T.assume(\(.*\))/    T.device_entry()\n    T.assume(\1)/; 0,/T.device_entry()/!{/^    T.device_entry()$/d}' d8.tx >late.tx
"$TXC_BIN/txc-parse" late.tx >/dev/null 2>err; rc=$?
check "after T.device_entry(): refused" [ $rc = 1 ]
check "after T.device_entry(): says where it belongs" grep -q "T.assume() comes before T.device_entry()" err
done_testing
