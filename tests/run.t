#!/usr/bin/env bash
# txc-run: the command line and bad inputs (no GPU needed); the host side
# against a fake CUDA driver that runs on the CPU (tests/run/fakecuda.c:
# initial data, launch configuration, comparison, .npy files, timing line,
# driver errors); then the real GPU with a cubin that nvcc builds from
# tests/run/copy.cu. Without nvcc or a GPU those last tests print SKIP;
# nothing else is skipped.
. "$(dirname "$0")/lib.sh"
RUN=$TXC_BIN/txc-run
D=$TOP/tests/run
P=$D/copy.tx

# npy FILE DESCR SHAPE COUNT: a .npy file of COUNT 16-bit words, each a
# finite float16 (no NaN whose payload an emulator might not keep).
npy() {
  perl -e 'my ($descr, $shape, $n) = @ARGV;
    my $h = "{\x27descr\x27: \x27$descr\x27, \x27fortran_order\x27: False, \x27shape\x27: ($shape), }";
    $h .= " " while (10 + length($h) + 1) % 64; $h .= "\n";
    print "\x93NUMPY\x01\x00", pack("v", length $h), $h, pack("v*", map { ($_ * 7 + 1) % 30720 | ($_ & 1) << 15 } 0 .. $n - 1);' \
    "$2" "$3" "$4" >"$1"
}
# data FILE: the last 65536 bytes of a .npy file of copy.tx's (256, 128) float16.
data() { tail -c 65536 "$1"; }
differ() { ! cmp -s "$1" "$2"; }
# run ARGS...: txc-run with stdout in $TMP/out, stderr in $TMP/err, status in rc.
run() { "$RUN" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
# why: the output of the last run, as TAP diagnostics.
why() { cat "$TMP/out" "$TMP/err" | head -20 | diag; }
expect() { # expect NAME STATUS: rc is STATUS, else show the output
  if [ "$rc" = "$2" ]; then ok "$1"; else not_ok "$1 (exit $rc, want $2)"; why; fi
}

# ---- the command line, and bad inputs found before any GPU is touched ----
run --help
expect "--help exits 0" 0
check "--help says usage" grep -q "^usage: txc-run" "$TMP/out"
check "--help names exit status 3" grep -q "exits 3" "$TMP/out"
run --frobnicate
expect "an unknown option exits 2" 2
run "$P"
expect "no --cubin exits 2" 2
check "and says so" grep -q "no --cubin" "$TMP/err"
run "$P" --cubin x.cubin --in A
expect "--in without NAME=FILE exits 2" 2
run "$P" --cubin x.cubin --time=0
expect "--time=0 exits 2" 2
run "$P" --cubin x.cubin --seed banana
expect "--seed banana exits 2" 2
run "$P" --cubin x.cubin -o out
expect "-o exits 2" 2
run "$P" --cubin "$TMP/missing.cubin"
expect "a missing cubin exits 1" 1
check "and names it" grep -q "cannot read '$TMP/missing.cubin'" "$TMP/err"
echo 'not a cubin' >"$TMP/text.cubin"
run "$P" --cubin "$TMP/text.cubin"
expect "a file that is no cubin exits 1" 1
check "and says so" grep -q "is not a cubin" "$TMP/err"
printf '\177ELF fake\ncopy copy\ncopy_half half\nnone none\nfault fault\nsmem_ none\n' >"$TMP/fake.cubin"
run "$TMP/missing.tx" --cubin "$TMP/fake.cubin"
expect "a missing program exits 1" 1
run "$P" --cubin "$TMP/fake.cubin" --kernel nope
expect "an unknown --kernel exits 1" 1
check "and lists the kernels" grep -q "has no kernel named 'nope' (it has: copy, copy_half)" "$TMP/err"
run "$P" --cubin "$TMP/fake.cubin" --in C="$TMP/x.npy"
expect "--in of an unknown buffer exits 1" 1
check "and lists the buffers" grep -q "has no buffer 'C' (its buffers: A, B)" "$TMP/err"
npy "$TMP/shape.npy" '<f2' '128, 128' 16384
run "$P" --cubin "$TMP/fake.cubin" --in A="$TMP/shape.npy"
expect "--in of the wrong shape exits 1" 1
check "and names the file" grep -q "^txc-run: error: --in A=$TMP/shape.npy: " "$TMP/err"
npy "$TMP/dtype.npy" '<i2' '256, 128' 32768
run "$P" --cubin "$TMP/fake.cubin" --in A="$TMP/dtype.npy"
expect "--in of the wrong dtype exits 1" 1
sed 's/"float16"/"float32"/' "$P" >"$TMP/f32.tx"
run "$P" --cubin "$TMP/fake.cubin" --ref "$TMP/f32.tx"
expect "a --ref with other buffers exits 1" 1
check "and says which" grep -q "buffer 1 'A' is float16 (256, 128), but the reference's 'A' is float32" "$TMP/err"
# scalar kernel parameters: each needs --arg NAME=INTEGER, checked before the GPU
SP=$TOP/tests/tvm/scalar_params.tx
run "$SP" --cubin "$TMP/fake.cubin" --arg flag=1
expect "a missing --arg exits 2" 2
check "and names the parameter" grep -q "has the scalar parameter 'n' (int64): give its value with --arg n=INTEGER" "$TMP/err"
run "$SP" --cubin "$TMP/fake.cubin" --arg flag=one --arg n=2
expect "--arg of a non-integer exits 2" 2
check "and says so" grep -q -- "--arg flag=one: not an integer of int32" "$TMP/err"
run "$SP" --cubin "$TMP/fake.cubin" --arg flag=1 --arg n=2 --arg m=3
expect "--arg of an unknown parameter exits 2" 2
check "and lists the scalar parameters" grep -q "has no scalar parameter 'm' (its scalar parameters: flag, n)" "$TMP/err"
run "$SP" --cubin "$TMP/fake.cubin" --arg flag=4294967296 --arg n=2
expect "--arg out of the dtype's range exits 2" 2

# ---- the host side, against the fake driver ----
FAKE=$TMP/fake
mkdir -p "$FAKE"
# The fake driver is part of the tests: when it does not build, that fails.
if ! ${CC:-cc} -std=c11 -shared -fPIC -o "$FAKE/libcuda.so.1" "$D/fakecuda.c" 2>"$TMP/cc"; then
  not_ok "fake driver: tests/run/fakecuda.c builds with ${CC:-cc}"; diag <"$TMP/cc"
else
  ok "fake driver: tests/run/fakecuda.c builds with ${CC:-cc}"
  export FAKECUDA_LOG=$TMP/log
  fake() { : >"$FAKECUDA_LOG"; LD_LIBRARY_PATH=$FAKE run "$@"; }
  fake "$P" --cubin "$TMP/fake.cubin"
  expect "fake driver: pass: a right copy exits 0" 0
  check "fake driver: pass: one PASS line with the count" \
    grep -qx "PASS kernel copy: 2 buffers, 65536 elements checked" "$TMP/out"
  check "fake driver: pass: launched as copy.tx says" \
    grep -qx "launch copy grid 2 1 1 block 128 1 1 smem 0" "$FAKECUDA_LOG"
  check "fake driver: pass: no shared-memory attribute under 48 KiB" [ "$(grep -c '^attr' "$FAKECUDA_LOG")" = 0 ]

  fake "$P" --cubin "$TMP/fake.cubin" --kernel copy_half
  expect "fake driver: fail: a half copy exits 1" 1
  check "fake driver: fail: says FAIL with the count" grep -Eq "^FAIL kernel copy_half: 16[0-9]{3} mismatches in B$" "$TMP/out"
  check "fake driver: fail: lists 10 mismatches" [ "$(grep -c '^  B\[' "$TMP/out")" = 10 ]
  check "fake driver: fail: first at B[128, 0], bits and values" \
    grep -Eq "^  B\[128, 0\]: got 0x[0-9a-f]{4} \(.*\) want 0x[0-9a-f]{4} \(.*\)$" "$TMP/out"

  # poisoned outputs: a kernel that writes nothing leaves B's random data
  sed 's/def copy_half/def none/' "$P" >"$TMP/none.tx"
  fake "$TMP/none.tx" --cubin "$TMP/fake.cubin" --kernel none
  expect "fake driver: poison: a kernel that writes nothing exits 1" 1
  check "fake driver: poison: nearly all of B differs" grep -Eq "^FAIL kernel none: 32[0-9]{3} mismatches in B$" "$TMP/out"

  npy "$TMP/in.npy" '<f2' '256, 128' 32768
  fake "$P" --cubin "$TMP/fake.cubin" --in A="$TMP/in.npy" --out B="$TMP/b.npy" --out A="$TMP/a.npy"
  expect "fake driver: out: --in and --out exit 0" 0
  check "fake driver: out: B holds the data of --in" cmp -s <(data "$TMP/in.npy") <(data "$TMP/b.npy")
  check "fake driver: out: and so does A" cmp -s <(data "$TMP/in.npy") <(data "$TMP/a.npy")

  fake "$P" --cubin "$TMP/fake.cubin" --seed 7 --out A="$TMP/s7.npy"
  fake "$P" --cubin "$TMP/fake.cubin" --seed 7 --out A="$TMP/s7b.npy"
  fake "$P" --cubin "$TMP/fake.cubin" --seed 8 --out A="$TMP/s8.npy"
  check "fake driver: seed: the same seed, the same data" cmp -s "$TMP/s7.npy" "$TMP/s7b.npy"
  check "fake driver: seed: another seed, other data" differ "$TMP/s7.npy" "$TMP/s8.npy"

  fake "$P" --cubin "$TMP/fake.cubin" --time 7
  expect "fake driver: time: exits 0" 0
  check "fake driver: time: the time line" grep -Eqx "time kernel copy: median [0-9.]+ us over 7 launches, [0-9]+ GB/s; cuMemcpyDtoD [0-9]+ GB/s; ratio [0-9.]+" "$TMP/out"
  check "fake driver: time: 1 + 5 warm-up + 7 launches" [ "$(grep -c '^launch' "$FAKECUDA_LOG")" = 13 ]

  fake "$P" --cubin "$TMP/fake.cubin" --no-check --time=3
  expect "fake driver: no-check: exits 0" 0
  check "fake driver: no-check: says it did not check" grep -qx "RAN kernel copy: 2 buffers, not checked (--no-check)" "$TMP/out"

  check "fake driver: time: the kernel and cuMemcpyDtoD in turns" \
    [ "$(grep -E '^(launch|memcpyDtoD)' "$FAKECUDA_LOG" | tail -6 | cut -c1-6 | tr '\n' ' ')" = "launch memcpy launch memcpy launch memcpy " ]

  # --expect DST=SRC: the copy is the reference, no emulator
  fake "$P" --cubin "$TMP/fake.cubin" --expect B=A
  expect "fake driver: expect: a right copy exits 0" 0
  check "fake driver: expect: PASS against --expect" \
    grep -qx "PASS kernel copy: 2 buffers, 65536 elements checked against --expect" "$TMP/out"
  fake "$P" --cubin "$TMP/fake.cubin" --kernel copy_half --expect B=A
  expect "fake driver: expect: a half copy exits 1" 1
  check "fake driver: expect: half of B differs" grep -Eq "^FAIL kernel copy_half: 16[0-9]{3} mismatches in B$" "$TMP/out"
  fake "$TMP/none.tx" --cubin "$TMP/fake.cubin" --kernel none --expect B=A
  expect "fake driver: expect: a kernel that writes nothing exits 1" 1
  fake "$P" --cubin "$TMP/fake.cubin" --expect A=B
  expect "fake driver: expect: the wrong direction exits 1" 1
  check "fake driver: expect: A and B both differ" grep -Eq "^FAIL kernel copy: 32[0-9]{3} mismatches in A, 32[0-9]{3} mismatches in B$" "$TMP/out"
  fake "$P" --cubin "$TMP/fake.cubin" --expect B=C
  expect "fake driver: expect: an unknown buffer exits 1" 1
  check "fake driver: expect: and lists the buffers" grep -q "^txc-run: error: --expect B=C: kernel 'copy' has no buffer 'C' (its buffers: A, B)" "$TMP/err"
  fake "$P" --cubin "$TMP/fake.cubin" --expect B=A --no-check
  expect "fake driver: expect: with --no-check exits 2" 2
  fake "$P" --cubin "$TMP/fake.cubin" --expect B=A --ref "$P"
  expect "fake driver: expect: with --ref exits 2" 2
  fake "$P" --cubin "$TMP/fake.cubin" --expect B
  expect "fake driver: expect: without =SRC exits 2" 2
  sed "s/B = T.match_buffer(B_ptr, shape, dtype)/B = T.match_buffer(B_ptr, shape, \"float32\")/" "$P" >"$TMP/shape.tx"
  fake "$TMP/shape.tx" --cubin "$TMP/fake.cubin" --expect B=A
  expect "fake driver: expect: buffers of other dtypes exit 1" 1
  check "fake driver: expect: and says why" grep -q "need the same dtype, shape and layout" "$TMP/err"

  fake "$D/smem.tx" --cubin "$TMP/fake.cubin" --no-check
  expect "fake driver: smem: exits 0 (the kernel smem is found as smem_)" 0
  check "fake driver: smem: asks for the plan + 1024 bytes (a swizzled buffer)" \
    grep -qx "attr smem_ 8 74752" "$FAKECUDA_LOG"
  check "fake driver: smem: and launches with it, on a 3-D grid" \
    grep -qx "launch smem_ grid 2 3 4 block 64 1 1 smem 74752" "$FAKECUDA_LOG"

  sed 's/def copy_half/def fault/' "$P" >"$TMP/fault.tx"
  fake "$TMP/fault.tx" --cubin "$TMP/fake.cubin" --kernel fault
  expect "fake driver: fault: a faulting kernel exits 1" 1
  check "fake driver: fault: names the call and the error" \
    grep -q "^txc-run: error: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access" "$TMP/err"

  printf '\177ELF garbage\n' >"$TMP/bad.cubin"
  fake "$P" --cubin "$TMP/bad.cubin"
  expect "fake driver: image: a cubin the driver refuses exits 1" 1
  check "fake driver: image: with the driver's reason" grep -q "cannot load '$TMP/bad.cubin': cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE" "$TMP/err"

  printf '\177ELF fake\ncopy copy\n' >"$TMP/one.cubin"
  fake "$P" --cubin "$TMP/one.cubin" --kernel copy_half
  expect "fake driver: kernel: a kernel missing from the cubin exits 1" 1
  check "fake driver: kernel: and says so" grep -q "'$TMP/one.cubin' has no kernel 'copy_half'" "$TMP/err"

  # a kernel declared in clusters: the cubin must have been compiled so
  printf '\177ELF fake\nkernel none\n' >"$TMP/cluster.cubin"
  fake "$TOP/tests/tvm/cluster_copy.tx" --cubin "$TMP/cluster.cubin"
  expect "fake driver: cluster: a cubin without the cluster shape exits 1" 1
  check "fake driver: cluster: and says so" \
    grep -q "launches in clusters of (0, 0, 0) CTAs, but the program declares (2, 1, 1)" "$TMP/err"
  FAKECUDA_CLUSTER=2,1,1 fake "$TOP/tests/tvm/cluster_copy.tx" --cubin "$TMP/cluster.cubin"
  check "fake driver: cluster: with it, the kernel is launched (and writes nothing)" \
    grep -q "^FAIL kernel kernel" "$TMP/out"
  # launched with cuLaunchKernelEx, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION the
  # program's T.cta_id_in_cluster([2]): (2, 1, 1), every launch
  check "fake driver: cluster: every launch is cuLaunchKernelEx with cluster (2, 1, 1)" eval \
    '[ "$(grep -c "^launchex kernel cluster 2 1 1$" "$FAKECUDA_LOG")" -ge 1 ] &&
     [ "$(grep -c "^launchex " "$FAKECUDA_LOG")" = "$(grep -c "^launch " "$FAKECUDA_LOG")" ]'
  printf '%s\n' 'from tvm.script import tir as T' '' '@T.prim_func' 'def kernel(B_ptr: T.handle):' \
    '    B = T.match_buffer(B_ptr, (4, 4), "int32")' '    T.device_entry()' '    bx, by = T.cta_id([4, 4])' \
    '    cx, cy = T.cta_id_in_cluster([2, 2])' '    tid = T.thread_id([32])' '    T.cuda.cluster_sync()' \
    '    if tid == 0:' '        B[by, bx] = cx + 2 * cy' >"$TMP/cluster22.tx"
  FAKECUDA_CLUSTER=2,2,1 fake "$TMP/cluster22.tx" --cubin "$TMP/cluster.cubin"
  check "fake driver: cluster: a (2, 2) cluster is launched with cluster (2, 2, 1)" \
    grep -q "^launchex kernel cluster 2 2 1$" "$FAKECUDA_LOG"
  fake "$P" --cubin "$TMP/fake.cubin"
  check "fake driver: cluster: a kernel without clusters is launched with cuLaunchKernel" eval \
    '[ "$(grep -c "^launchex " "$FAKECUDA_LOG")" = 0 ] && grep -q "^launch " "$FAKECUDA_LOG"'

  FAKECUDA_NODEVICE=1 fake "$P" --cubin "$TMP/fake.cubin"
  expect "fake driver: nodevice: no device exits 3" 3
  check "fake driver: nodevice: txc-run: no GPU: and the reason" grep -q "^txc-run: no GPU: cuInit: CUDA_ERROR_NO_DEVICE" "$TMP/err"

  # a lowered file checked against its source: --ref names the source
  { echo "# lowered"; cat "$P"; } >"$TMP/lowered.tx"
  fake "$TMP/lowered.tx" --cubin "$TMP/fake.cubin" --ref "$P"
  expect "fake driver: ref: a program checked against --ref passes" 0
  sed 's/flag: T.int32/flag: T.int64/' "$SP" >"$TMP/sp64.tx"
  fake "$SP" --cubin "$TMP/fake.cubin" --ref "$TMP/sp64.tx" --arg flag=1 --arg n=2
  expect "fake driver: ref: a --ref with other scalars exits 1" 1
  check "fake driver: ref: and says which" \
    grep -qx "txc-run: error: kernel 'kernel': scalar 1 'flag' is int32, but the reference's 'flag' is int64" "$TMP/err"

  # TMA: tests/run/tma.tx is a hand-written lowered kernel with two tensor
  # maps; its "cubin" logs the launch's four parameters (two buffers, two
  # maps), the fake cuTensorMapEncodeTiled every argument it gets. The
  # values, from the T.tensormap lines and cuda.h's enums:
  #   A_map: CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, rank 2, at A + 0, dims
  #     64 64, the byte stride of a row of 64 float16 = 128, box 64 32,
  #     element strides 1 1 (the default), INTERLEAVE_NONE = 0,
  #     SWIZZLE_128B = 3, L2_PROMOTION_L2_256B = 3,
  #     FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1;
  #   B_map: FLOAT32 = 7, rank 3, at B + offset 40 x 4 bytes = B + 160, dims
  #     16 6 3, strides 128 1024, box 8 4 2, element strides 1 2 1,
  #     interleave 0, SWIZZLE_NONE = 0, L2_128B = 2 (the default 128 bytes),
  #     FLOAT_OOB_FILL_NONE = 0.
  T=$D/tma.tx
  printf '\177ELF fake\ntma params:bbtt\n' >"$TMP/tma.cubin"
  fake "$T" --cubin "$TMP/tma.cubin" --ref "$D/tma_src.tx"
  expect "fake driver: tma: a lowered kernel with tensor maps, checked against its source (no maps), passes" 0
  check "fake driver: tma: every element of A and B checked (64 x 64 + 4 x 8 x 32)" \
    grep -qx "PASS kernel tma: 2 buffers, $((64 * 64 + 4 * 8 * 32)) elements checked" "$TMP/out"
  a=$(sed -n 's/^param 0 b //p' "$FAKECUDA_LOG")
  b=$(sed -n 's/^param 1 b //p' "$FAKECUDA_LOG")
  b160=$(printf '0x%x' $((b + 40 * 4)))
  check "fake driver: tma: A_map encoded from its line and A's address" \
    grep -qx "encode 1 dtype 6 rank 2 addr $a dims 64 64 strides 128 box 64 32 estrides 1 1 interleave 0 swizzle 3 l2 3 fill 1" "$FAKECUDA_LOG"
  check "fake driver: tma: B_map encoded from its line and B's address + 160 bytes" \
    grep -qx "encode 2 dtype 7 rank 3 addr $b160 dims 16 6 3 strides 128 1024 box 8 4 2 estrides 1 2 1 interleave 0 swizzle 0 l2 2 fill 0" "$FAKECUDA_LOG"
  printf 'param 0 b %s\nparam 1 b %s\nparam 2 t map 1 addr %s\nparam 3 t map 2 addr %s\n' "$a" "$b" "$a" "$b160" >"$TMP/want"
  check "fake driver: tma: the buffers, then the maps in declaration order, each the map the driver encoded" \
    cmp -s "$TMP/want" <(grep '^param' "$FAKECUDA_LOG")
  fake "$T" --cubin "$TMP/tma.cubin" --no-check --time 2
  check "fake driver: tma: --time encodes once" [ "$(grep -c '^encode' "$FAKECUDA_LOG")" = 2 ]
  check "fake driver: tma: and each of the 1 + 5 + 2 launches gets both maps" \
    [ "$(grep -c '^param 2 t map 1 ' "$FAKECUDA_LOG") $(grep -c '^param 3 t map 2 ' "$FAKECUDA_LOG")" = "8 8" ]
  FAKECUDA_ENCODE_FAIL=2 fake "$T" --cubin "$TMP/tma.cubin" --ref "$D/tma_src.tx"
  expect "fake driver: tma: an encoding the driver refuses exits 1" 1
  line=$(grep -n 'B_map = ' "$T" | cut -d: -f1)
  check "fake driver: tma: naming the map, its line and the driver's error" grep -qx \
    "txc-run: error: $T:$line: kernel 'tma': cannot encode tensor map 'B_map' over buffer 'B': cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE (1): invalid argument" "$TMP/err"
  check "fake driver: tma: and launches nothing" [ "$(grep -c '^launch' "$FAKECUDA_LOG")" = 0 ]

  # A source program whose copy_async goes through TMA: its cubin's kernel
  # takes tensor maps that only the lowered IR declares. Refused before the
  # GPU is touched (no device: still exit 1, not 3).
  E=$TOP/examples/tma_load_store.tx
  why_tma="run txc-run on its lowered IR (txc --emit=ir) with --ref the source"
  load=$(grep -n 'Tx.copy_async(A_smem' "$E" | cut -d: -f1)
  store=$(grep -n 'Tx.copy_async(B' "$E" | cut -d: -f1)
  FAKECUDA_NODEVICE=1 fake "$E" --cubin "$TMP/fake.cubin"
  expect "fake driver: tma source: dispatch=\"tma\" exits 1" 1
  check "fake driver: tma source: says to run the lowered IR, at the first TMA copy" \
    grep -qx "txc-run: error: $E:$load: kernel 'tma_load_store' copies with TMA: $why_tma" "$TMP/err"
  check "fake driver: tma source: before touching the driver" [ ! -s "$FAKECUDA_LOG" ]
  sed 's/dispatch="tma", //' "$E" >"$TMP/tma_auto.tx"
  fake "$TMP/tma_auto.tx" --cubin "$TMP/fake.cubin"
  check "fake driver: tma source: a global -> shared copy with mbar= and no dispatch= goes to TMA too" \
    grep -qx "txc-run: error: $TMP/tma_auto.tx:$load: kernel 'tma_load_store' copies with TMA: $why_tma" "$TMP/err"
  sed -e 's/dispatch="tma", //' -e '/Tx.copy_async(A_smem/d' "$E" >"$TMP/tma_store.tx"
  fake "$TMP/tma_store.tx" --cubin "$TMP/fake.cubin"
  check "fake driver: tma source: so does a shared -> global copy (the line after the removed one)" \
    grep -qx "txc-run: error: $TMP/tma_store.tx:$((store - 1)): kernel 'tma_load_store' copies with TMA: $why_tma" "$TMP/err"
  printf '\177ELF fake\ncopy_async none\n' >"$TMP/ldgsts.cubin"
  fake "$TOP/examples/ldgsts_load.tx" --cubin "$TMP/ldgsts.cubin" --no-check
  expect "fake driver: tma source: an ldgsts copy_async is not refused" 0

  # im2col maps: cuTensorMapEncodeIm2col gets examples/tma_im2col.tx's
  # A_map: FLOAT16 = 6, rank 3, at A, dims 16 16 2, strides 32 512, the
  # corners -1 and -1, 16 channels, 32 pixels, element strides 1 1 1 (the
  # default), interleave 0, SWIZZLE_NONE = 0, L2_128B = 2, FILL_NONE = 0.
  printf '\177ELF fake\ntma_im2col params:bbt\n' >"$TMP/i2c.cubin"
  fake "$TOP/examples/tma_im2col.tx" --cubin "$TMP/i2c.cubin" --no-check
  expect "fake driver: im2col: a kernel with an im2col map runs" 0
  a=$(sed -n 's/^param 0 b //p' "$FAKECUDA_LOG")
  check "fake driver: im2col: A_map encoded by cuTensorMapEncodeIm2col from its line" \
    grep -qx "encode 1 dtype 6 rank 3 addr $a dims 16 16 2 strides 32 512 im2col lower -1 upper -1 channels 16 pixels 32 estrides 1 1 1 interleave 0 swizzle 0 l2 2 fill 0" "$FAKECUDA_LOG"
  check "fake driver: im2col: and passed as the kernel's third parameter" grep -qx "param 2 t map 1 addr $a" "$FAKECUDA_LOG"
  # and cuTensorMapEncodeIm2colWide: a rank-4 float32 (FLOAT32 = 7) map
  # at C + 64 x 4 bytes, dims 32 20 4 2, strides 128 2560 10240, W corners
  # -2 and 1, 32 channels, 128 pixels (the ::w::128 mode's), element strides
  # 1 2 1 1, interleave 0, mode CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 = 1,
  # SWIZZLE_128B = 3, L2_256B = 3, NAN_REQUEST_ZERO_FMA = 1; then a ::w map
  # (mode W = 0) with 7 pixels, 64-byte swizzle (2), the other defaults.
  cat >"$TMP/wide.tx" <<'TX'
from tvm.script import tir as T


@T.prim_func
def wide(C_ptr: T.handle):
    C = T.match_buffer(C_ptr, (5200,), "float32")
    C_map = T.tensormap_im2col(C, dims=[32, 20, 4, 2], strides=[128, 2560, 10240], lower_corner=[-2], upper_corner=[1], channels_per_pixel=32, elem_strides=[1, 2, 1, 1], swizzle=128, fill="nan", l2_promotion=256, offset=64, mode="im2col::w::128")
    D_map = T.tensormap_im2col(C, dims=[16, 20, 2], strides=[64, 1280], lower_corner=[0], upper_corner=[0], channels_per_pixel=16, pixels_per_column=7, swizzle=64, mode="im2col::w")
    T.device_entry()
    tid = T.thread_id([32])
    C[tid] = T.float32(1)
TX
  printf '\177ELF fake\nwide params:btt\n' >"$TMP/wide.cubin"
  fake "$TMP/wide.tx" --cubin "$TMP/wide.cubin" --no-check
  expect "fake driver: im2col wide: a kernel with two ::w maps runs" 0
  c=$(sed -n 's/^param 0 b //p' "$FAKECUDA_LOG")
  c64=$(printf '0x%x' $((c + 64 * 4)))
  check "fake driver: im2col wide: C_map (::w::128) encoded by cuTensorMapEncodeIm2colWide" \
    grep -qx "encode 1 dtype 7 rank 4 addr $c64 dims 32 20 4 2 strides 128 2560 10240 im2col_wide lower -2 upper 1 channels 32 pixels 128 estrides 1 2 1 1 interleave 0 mode 1 swizzle 3 l2 3 fill 1" "$FAKECUDA_LOG"
  check "fake driver: im2col wide: D_map (::w) too" \
    grep -qx "encode 2 dtype 7 rank 3 addr $c dims 16 20 2 strides 64 1280 im2col_wide lower 0 upper 0 channels 16 pixels 7 estrides 1 1 1 interleave 0 mode 0 swizzle 2 l2 2 fill 0" "$FAKECUDA_LOG"
  FAKECUDA_ENCODE_FAIL=1 fake "$TOP/examples/tma_im2col.tx" --cubin "$TMP/i2c.cubin" --no-check
  line=$(grep -n 'A_map = ' "$TOP/examples/tma_im2col.tx" | cut -d: -f1)
  check "fake driver: im2col: a refused encoding names cuTensorMapEncodeIm2col" grep -qx \
    "txc-run: error: $TOP/examples/tma_im2col.tx:$line: kernel 'tma_im2col': cannot encode tensor map 'A_map' over buffer 'A': cuTensorMapEncodeIm2col: CUDA_ERROR_INVALID_VALUE (1): invalid argument" "$TMP/err"
  unset FAKECUDA_LOG
fi

# ---- the real GPU ----
# CUDA under AddressSanitizer needs the shadow gap unprotected; the driver's
# own allocations are not ours to report.
export ASAN_OPTIONS="$ASAN_OPTIONS:protect_shadow_gap=0"
printf 'leak:libcuda\nleak:libnvidia\n' >"$TMP/lsan.supp"
export LSAN_OPTIONS="suppressions=$TMP/lsan.supp"
GPU_TESTS="pass fail out time scalar-parameters tma tma_multicast tma-replace"
NVCC=$(command -v nvcc || echo "${CUDA:-/usr/local/cuda}/bin/nvcc")
if [ ! -x "$NVCC" ]; then
  for t in $GPU_TESTS; do skip "gpu: $t" "no nvcc"; done
elif ! "$NVCC" -arch=sm_90a -cubin -o "$TMP/copy.cubin" "$D/copy.cu" 2>"$TMP/nvcc"; then
  not_ok "gpu: nvcc builds tests/run/copy.cu"; diag <"$TMP/nvcc"
else
  # gpu NAME STATUS ARGS...: one test point; exit 3 is a SKIP with its reason
  gpu() {
    local name=$1 want=$2; shift 2
    run "$P" --cubin "$TMP/copy.cubin" "$@"
    if [ "$rc" = 3 ]; then
      skip "gpu: $name" "no GPU"; diag <"$TMP/err"; return 1
    fi
    expect "gpu: $name" "$want"
    [ "$rc" = "$want" ]
  }
  if gpu "pass: the right copy passes" 0; then
    check "gpu: pass: the PASS line" grep -qx "PASS kernel copy: 2 buffers, 65536 elements checked" "$TMP/out"
  fi
  if gpu "fail: the half copy fails" 1 --kernel copy_half; then
    check "gpu: fail: about half of B differs" grep -Eq "^FAIL kernel copy_half: 16[0-9]{3} mismatches in B$" "$TMP/out"
    check "gpu: fail: the first at B[0, 64]" grep -Eq "^  B\[0, 64\]: got 0x[0-9a-f]{4} \(.*\) want 0x" "$TMP/out"
  fi
  npy "$TMP/in.npy" '<f2' '256, 128' 32768
  if gpu "out: --in and --out" 0 --in A="$TMP/in.npy" --out B="$TMP/gb.npy"; then
    check "gpu: out: B holds the data of --in" cmp -s <(data "$TMP/in.npy") <(data "$TMP/gb.npy")
  fi
  # a kernel with scalar parameters, both ways of its branch and its loop
  if "$TXC_BIN/txc" --emit=cubin "$SP" -o "$TMP/sp.cubin" 2>"$TMP/err"; then
    for a in "flag=0 n=0" "flag=1 n=5"; do
      run "$SP" --cubin "$TMP/sp.cubin" --arg ${a% *} --arg ${a#* }
      if [ "$rc" = 3 ]; then skip "gpu: scalar parameters $a" "no GPU"; else expect "gpu: scalar parameters $a: the same as the emulator" 0; fi
    done
  else
    not_ok "gpu: txc builds the cubin of tests/tvm/scalar_params.tx"; diag <"$TMP/err"
  fi
  if gpu "time: --time" 0 --time 20; then
    check "gpu: time: the time line with a ratio" grep -Eqx "time kernel copy: median [0-9.]+ us over 20 launches, [0-9]+ GB/s; cuMemcpyDtoD [0-9]+ GB/s; ratio [0-9.]+" "$TMP/out"
  fi
  # tensor maps: tests/run/tma.cu takes tma.tx's two maps; the real driver
  # encodes both, and A's rows 32..63 land on rows 0..31 through A_map
  cat >"$TMP/tma_ref.tx" <<'TX'
from tvm.script import tir as T


@T.prim_func
def tma(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (4, 8, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    for i in range(16):
        A[tid // 4, tid % 4 * 16 + i] = A[32 + tid // 4, tid % 4 * 16 + i]
TX
  if ! "$NVCC" -arch=sm_90a -cubin -o "$TMP/tma.cubin" "$D/tma.cu" 2>"$TMP/nvcc"; then
    not_ok "gpu: nvcc builds tests/run/tma.cu"; diag <"$TMP/nvcc"
  else
    run "$D/tma.tx" --cubin "$TMP/tma.cubin" --ref "$TMP/tma_ref.tx" --time 3
    if [ "$rc" = 3 ]; then
      skip "gpu: tma" "no GPU"
    else
      expect "gpu: tma: the maps encoded and passed: A's rows moved through A_map, as the reference" 0
    fi
  fi
  # a TMA load multicast to the two CTAs of each cluster: the GPU's B
  # against the emulator's (txc-run checks every element), launched with
  # cuLaunchKernelEx in clusters of (2, 1, 1)
  if "$TXC_BIN/txc" --emit=cubin "$TOP/examples/tma_multicast.tx" -o "$TMP/mc.cubin" 2>"$TMP/err" &&
     "$TXC_BIN/txc" --emit=ir "$TOP/examples/tma_multicast.tx" -o "$TMP/mc.ir.tx" 2>"$TMP/err"; then
    run "$TMP/mc.ir.tx" --cubin "$TMP/mc.cubin" --ref "$TOP/examples/tma_multicast.tx"
    if [ "$rc" = 3 ]; then
      skip "gpu: tma_multicast" "no GPU"
    else
      expect "gpu: tma_multicast: each CTA holds both halves of its cluster's tile, as the emulator says" 0
      check "gpu: tma_multicast: the PASS line" grep -q "^PASS kernel tma_multicast: 2 buffers" "$TMP/out"
    fi
  else
    not_ok "gpu: txc builds the cubin and the lowered IR of examples/tma_multicast.tx"; diag <"$TMP/err"
  fi
  # a tensor map edited on the device (examples/tma_replace.tx): copied to
  # shared memory, global_address and global_dim replaced, published to
  # global memory, loaded through; every parameter as the emulator gives it
  if "$TXC_BIN/txc" --emit=cubin "$TOP/examples/tma_replace.tx" -o "$TMP/tr.cubin" 2>"$TMP/err"; then
    run "$TOP/examples/tma_replace.tx" --cubin "$TMP/tr.cubin"
    if [ "$rc" = 3 ]; then
      skip "gpu: tma-replace" "no GPU"
    else
      expect "gpu: tma-replace: B's rows through the edited map, rows past its global_dim zero, as the emulator" 0
    fi
  else
    not_ok "gpu: txc builds the cubin of examples/tma_replace.tx"; diag <"$TMP/err"
  fi
fi
done_testing
