#!/usr/bin/env bash
# Cache qualifiers of a synchronous copy's global loads (Tx.copy's cache=,
# l1_evict= and prefetch_size=, TVM's spellings): the lowered
# T.cuda.copy_bytes carries them in PTX's order, txc-cuda loads with one
# ld.global.QUALS of the access's width (1 to 16 bytes) that ptxas accepts,
# the emulator's result is the plain copy's, and wrong values, wrong
# sources and the L2 eviction priority (256-bit loads only) are refused at
# their token. TVM's test_copy_vec_128b_nc_with_hints as written.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || NVCC=

# kernel FILE DTYPE COLS KWARGS: 32 threads, each copies its row of A
# (COLS elements of DTYPE) into shared memory with the keywords, then B
kernel() {
  cat >"$1" <<EOT
from tvm.script import tir as T
from tvm.script import tirx as Tx

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, $3), "$2")
    B = T.match_buffer(B_ptr, (32, $3), "$2")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    A_smem = T.alloc_shared((32, $3), "$2")
    Tx.copy(A_smem[tid, :], A[tid, :]$4)
    T.cuda.cta_sync()
    Tx.copy(B[tid, :], A_smem[tid, :])
EOT
}
# width dtype cols: bytes of one access (a row of the region)
for row in "16 float16 8" "8 float16 4" "4 float32 1" "2 float16 1" "1 int8 1"; do
  set -- $row
  for kw in 'l1_evict="L1::no_allocate"|L1::no_allocate' 'cache="nc", l1_evict="L1::evict_last"|nc.L1::evict_last' \
            'prefetch_size="L2::256B"|L2::256B' 'prefetch_size=128, l1_evict="L1::evict_first"|L1::evict_first.L2::128B' \
            'cache="nc", l1_evict="L1::no_allocate", prefetch_size="L2::64B"|nc.L1::no_allocate.L2::64B'; do
    kws=${kw%|*} quals=${kw#*|}
    name="$1 bytes, $kws"
    kernel k.tx "$2" "$3" ", $kws"
    if ! "$TXC_BIN/txc" k.tx --emit=ir -o k.ir 2>err; then not_ok "$name: lowered"; diag <err; continue; fi
    check "$name: copy_bytes of $1 bytes with \"$quals\"" grep -q "T.cuda.copy_bytes(.*, $1, \"$quals\")" k.ir
    "$TXC_BIN/txc-cuda" k.ir -o k.cu 2>err
    case $1 in 16) v=v4.u32 ;; 8) v=v2.u32 ;; 4) v=u32 ;; 2) v=u16 ;; 1) v=u8 ;; esac
    check "$name: ld.global.$quals.$v" grep -qF "ld.global.$quals.$v " k.cu
    "$TXC_BIN/txc-ptx" k.ir -o k.ptx 2>err
    check "$name: txc-ptx, the same load" grep -qF "ld.global.$quals.$v " k.ptx
    "$TXC_BIN/txc-emu" k.ir >low.sum 2>err
    kernel plain.tx "$2" "$3" ""
    "$TXC_BIN/txc-emu" plain.tx >plain.sum 2>>err
    check "$name: the emulator copies as the plain copy does" cmp -s low.sum plain.sum
    if [ -n "$NVCC" ]; then
      check "$name: nvcc -arch=sm_90a" "$NVCC" -arch=sm_90a -cubin -o k.cubin k.cu
    fi
  done
done

# TVM's test as written: one thread, A -> registers -> B, int32 x 4
cat >tvm.tx <<'EOT'
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle) -> None:
    A = T.match_buffer(A_ptr, (4,), "int32")
    B = T.match_buffer(B_ptr, (4,), "int32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    reg = T.alloc_local((4,), "int32")
    Tx.copy(reg[:], A[:], dispatch="vec_128b", cache="nc", l1_evict="L1::no_allocate", prefetch_size="L2::256B")
    Tx.copy(B[:], reg[:], dispatch="vec_128b")
EOT
"$TXC_BIN/txc" tvm.tx -o tvm.cu 2>err
check "TVM's vec_128b nc with hints: its instruction" grep -qF "ld.global.nc.L1::no_allocate.L2::256B.v4.u32" tvm.cu
"$TXC_BIN/txc-emu" tvm.tx >tvm.sum
check "TVM's vec_128b nc with hints: B = A on the emulator" \
  [ "$(sed -n 's/^A //p' tvm.sum)" = "$(sed -n 's/^B //p' tvm.sum)" ]

# ---- refused ----
refuse() { # refuse NAME KWARGS MESSAGE [SWAP]: at line 12, the copy's line
  kernel bad.tx float16 8 ", $2"
  [ -n "${4:-}" ] && sed -i 's/Tx.copy(A_smem\[tid, :\], A\[tid, :\], \(.*\))$/Tx.copy(B[tid, :], A_smem[tid, :], \1)/' bad.tx
  "$TXC_BIN/txc-parse" bad.tx >/dev/null 2>err; local rc=$?
  if [ $rc = 1 ] && grep -qF "bad.tx:12:" err && grep -qF "$3" err; then ok "refused: $1"; else
    not_ok "refused: $1 (exit $rc)"; diag <err; fi
}
refuse "an L2 priority as l1_evict" 'l1_evict="L2::evict_first"' \
  'l1_evict= is an L1 eviction priority of the copy'"'"'s global loads ("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate"), not "L2::evict_first"'
refuse "l2_evict" 'l2_evict="L2::evict_first"' "not supported yet: l2_evict=: PTX gives a load an L2 eviction priority only on 256-bit loads"
refuse "a prefetch of 512 bytes" 'prefetch_size=512' 'prefetch_size= is an L2 prefetch with each global load: 64, 128 or 256 bytes'
refuse "a prefetch spelled as L1" 'prefetch_size="L1::no_allocate"' 'not "L1::no_allocate"'
refuse "l1_evict on a load from shared memory" 'l1_evict="L1::no_allocate"' \
  "l1_evict= qualifies the copy's global loads, and the source 'A_smem' is in shared memory" swap
refuse "prefetch_size on a load from shared memory" 'prefetch_size=64' \
  "prefetch_size= goes with the copy's global loads, and the source 'A_smem' is in shared memory" swap
# the lowered operand, written by hand
for q in 'nc.nc' 'L2::256B.L1::no_allocate' 'L1::no_allocate.' 'cg' ''; do
  cat >raw.tx <<EOT
from tvm.script import tir as T

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float16")
    B = T.match_buffer(B_ptr, (32, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    T.cuda.copy_bytes(T.address_of(B[tid, 0]), T.address_of(A[tid, 0]), 16, "$q")
EOT
  "$TXC_BIN/txc-parse" raw.tx >/dev/null 2>err; rc=$?
  if [ $rc = 1 ] && grep -q "raw.tx:10:.*error: T.cuda.copy_bytes: \(the qualifiers of a global load\|\"$q\" ends in a dot\)" err; then
    ok "copy_bytes refuses \"$q\""; else not_ok "copy_bytes refuses \"$q\" (exit $rc)"; diag <err; fi
done
done_testing
