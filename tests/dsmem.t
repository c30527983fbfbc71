#!/usr/bin/env bash
# The dsmem variant (variants/dsmem.c): a copy_async of one CTA's shared
# memory into another CTA's of the cluster, as TVM's dsmem tests write it
# (tests/dsmem/copy.tx, TVM's five layout cases and three dtypes): the
# number of bulk copies and their size, B = A on the emulator before and
# after lowering (B starts as other random data), ptxas and nvcc for
# sm_90a, and on a GPU bit for bit as on the emulator through both
# backends; the row- against column-major case is refused with its rule.
. "$(dirname "$0")/lib.sh"
export PATH=$PATH:/usr/local/cuda/bin
D=$TOP/tests/dsmem
gpu=unknown
# name|shape|src strides|dst strides|dtype|swizzle|bulk copies|bytes each (0: refused)
while IFS='|' read -r name shape ss dsn dt sw count bytes; do
  f=$TMP/$name.tx
  sed -e "s/^shape = .*/shape = $shape/" -e "s/^src_strides = .*/src_strides = $ss/" -e "s/^swizzle = .*/swizzle = $sw/" \
      -e "s/^dst_strides = .*/dst_strides = $dsn/" -e "s/^dtype = .*/dtype = \"$dt\"/" "$D/copy.tx" >"$f"
  if [ "$bytes" = 0 ]; then
    if "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/x.low" 2>"$TMP/err"; then
      not_ok "$name: refused"; continue
    fi
    check "$name: refused: no run contiguous on both sides" \
      grep -q "dsmem: the regions' longest run contiguous on both sides is 1 element (2 bytes): cp.async.bulk moves a positive multiple of 16 bytes" "$TMP/err"
    continue
  fi
  if ! "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/x.low" 2>"$TMP/err"; then
    not_ok "$name: lowers"; diag <"$TMP/err"; continue
  fi
  n=$(grep -c "T\.ptx\.cp_async\.bulk\.s2c(.*, $bytes, T\.address_of(mbar\[0\]), T\.int32(1))" "$TMP/x.low")
  loop=$(grep -c "for f in range($count):" "$TMP/x.low")
  check "$name: $count bulk copies of $bytes bytes" [ "$n" = 1 -a \( "$count" = 1 -o "$loop" = 1 \) ]
  if ! "$TXC_BIN/txc-emu" "$f" >"$TMP/a" 2>"$TMP/err" || ! "$TXC_BIN/txc-emu" "$TMP/x.low" >"$TMP/b" 2>>"$TMP/err"; then
    not_ok "$name: emulated"; diag <"$TMP/err"; continue
  fi
  same_text "$name: the same before and after lowering" "$TMP/a" "$TMP/b"
  check "$name: B is A" [ "$(awk '$1 == "A" { print $2 }' "$TMP/b")" = "$(awk '$1 == "B" { print $2 }' "$TMP/b")" ]
  for b in ptx cuda; do
    tool=$([ $b = ptx ] && echo ptxas || echo nvcc)
    if ! command -v $tool >/dev/null; then skip "$name: $tool compiles it" "no $tool"; continue; fi
    if ! "$TXC_BIN/txc" --arch=sm_90a --backend=$b --emit=cubin "$f" -o "$TMP/$b.cubin" 2>"$TMP/err"; then
      not_ok "$name: $tool compiles it"; diag <"$TMP/err"; continue
    fi
    ok "$name: $tool compiles it"
    if [ "$gpu" = no ]; then skip "$name: on the GPU ($b backend)" "no GPU"; continue; fi
    "$TXC_BIN/txc-run" --cubin "$TMP/$b.cubin" "$f" >"$TMP/out" 2>&1; rc=$?
    case $rc in
      0) gpu=yes; ok "$name: on the GPU ($b backend), the same as the emulator" ;;
      3) gpu=no; skip "$name: on the GPU ($b backend)" "no GPU" ;;
      *) not_ok "$name: on the GPU ($b backend) (exit $rc)"; diag <"$TMP/out" ;;
    esac
  done
done <<'EOF_CASES'
contiguous-2d|(128, 64)|(64, 1)|(64, 1)|float16|0|1|16384
contiguous-1d|(256,)|(1,)|(1,)|float16|0|1|512
stride-gap|(8, 128)|(256, 1)|(256, 1)|float16|0|8|256
partial-contiguity-diff-stride|(8, 128)|(256, 1)|(512, 1)|float16|0|8|256
incompatible-row-vs-col|(4, 64)|(64, 1)|(1, 4)|float16|0|0|0
contiguous-2d-float32|(32, 64)|(64, 1)|(64, 1)|float32|0|1|8192
stride-gap-int8|(8, 32)|(48, 1)|(64, 1)|int8|0|8|32
swizzled-128B|(64, 64)|(64, 1)|(64, 1)|float16|3|1|8192
EOF_CASES
done_testing
