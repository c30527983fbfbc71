#!/usr/bin/env bash
# The ldstmatrix variant (variants/ldstmatrix.c): register <-> shared copies
# whose registers are m8n8 fragments lower to ldmatrix / stmatrix.
# - tests/ldstmatrix/roundtrip.tx for num 1, 2, 4, trans False/True and the
#   128-byte swizzle or none (TVM's round-trip tests of the variant), each
#   of its six kernels (warp, warpgroup, CTA x ld, st): the lowered kernel
#   has the .x{num} (.trans) instruction; B is A (every element, by the
#   emulator's hash of its bytes; B starts as other random data), the same
#   before and after lowering; ptxas takes the PTX for sm_90a; on a GPU it
#   runs bit for bit as on the emulator, through the PTX and the CUDA
#   backends.
# - multi_iter.tx: 8 and 10 ldmatrix .x4 for 4 and 5 row groups.
# - mma_stages.tx, slices.tx: an m16n8k16 A fragment of a swizzled ring at
#   a run-time stage; column slices of the registers, a forced dispatch.
# - random.pl: 40 random fragments and shared layouts (12 on the GPU).
# - unrolled.tx: register slices at a T.unroll loop variable's place.
# - tcgen05_atom.tx: TVM's regression case, a warpgroup's .16x256b atom.
# - declines.tx: the reasons reg takes a copy instead (and stmatrix on sm_80).
. "$(dirname "$0")/lib.sh"
export PATH=$PATH:/usr/local/cuda/bin
D=$TOP/tests/ldstmatrix
gpu=unknown
# on_gpu NAME FILE KERNEL...: txc-run each kernel through both backends
# (skipped without a GPU: txc-run exits 3)
on_gpu() {
  local name=$1 f=$2 b k rc
  shift 2
  if [ "$gpu" = no ] || ! command -v ptxas >/dev/null; then skip "$name: on the GPU" "no GPU"; return; fi
  for b in ptx cuda; do
    if [ $b = cuda ] && ! command -v nvcc >/dev/null; then skip "$name: on the GPU (cuda)" "no nvcc"; continue; fi
    if ! "$TXC_BIN/txc" --backend=$b --emit=cubin "$f" -o "$TMP/k.cubin" 2>"$TMP/err"; then
      not_ok "$name: compiles ($b)"; diag <"$TMP/err"; continue
    fi
    for k in "$@"; do
      "$TXC_BIN/txc-run" --kernel "$k" --cubin "$TMP/k.cubin" "$f" >"$TMP/out" 2>&1; rc=$?
      case $rc in
        0) gpu=yes; ok "$name $k: on the GPU ($b backend), the same as the emulator" ;;
        3) gpu=no; skip "$name: on the GPU" "no GPU"; return ;;
        *) not_ok "$name $k: on the GPU ($b backend) (exit $rc)"; diag <"$TMP/out" ;;
      esac
    done
  done
}
# emulated NAME FILE LOWERED KERNEL: source and lowered runs agree, and B is A
emulated() {
  local name=$1 f=$2 low=$3 k=$4
  if ! "$TXC_BIN/txc-emu" --kernel "$k" "$f" >"$TMP/a" 2>"$TMP/err" ||
     ! "$TXC_BIN/txc-emu" --kernel "$k" "$low" >"$TMP/b" 2>>"$TMP/err"; then
    not_ok "$name: emulated"; diag <"$TMP/err"; return
  fi
  same_text "$name: the same before and after lowering" "$TMP/a" "$TMP/b"
  check "$name: B is A" [ "$(awk '$1 == "A" { print $2 }' "$TMP/b")" = "$(awk '$1 == "B" { print $2 }' "$TMP/b")" ]
}
for num in 1 2 4; do
  for trans in False True; do
    for sw in False True; do
      cfg="num=$num trans=$trans swizzle=$sw"
      f=$TMP/rt_${num}_${trans}_$sw.tx
      sed -e "s/^num = .*/num = $num/" -e "s/^trans = .*/trans = $trans/" -e "s/^swizzle = .*/swizzle = $sw/" \
        "$D/roundtrip.tx" >"$f"
      if ! "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/rt.low" 2>"$TMP/err"; then
        not_ok "$cfg: lowers"; diag <"$TMP/err"; continue
      fi
      for k in warp_ld warp_st wg_ld wg_st cta_ld cta_st; do
        ins=$([ "${k#*_}" = ld ] && echo ldmatrix || echo stmatrix)
        # the kernel's lowered body: one instruction of the form
        n=$(awk -v k="$k" '/^def / { on = index($0, "def " k "(") == 1 } on' "$TMP/rt.low" |
            grep -c "T\.ptx\.$ins($num, $trans, ")
        check "$cfg $k: one $ins .x$num$([ $trans = True ] && echo ' .trans')" [ "$n" = 1 ]
        emulated "$cfg $k" "$f" "$TMP/rt.low" "$k"
      done
      if command -v ptxas >/dev/null; then
        if "$TXC_BIN/txc" --arch=sm_90a --emit=cubin "$f" -o "$TMP/rt.cubin" 2>"$TMP/err"; then
          ok "$cfg: ptxas takes its PTX for sm_90a"
        else
          not_ok "$cfg: ptxas takes its PTX for sm_90a"; diag <"$TMP/err"
        fi
      else
        skip "$cfg: ptxas takes its PTX" "no ptxas"
      fi
      # on the GPU: every kernel of the plain and the swizzled forms of num 4
      # and of num 1, .trans and not
      if [ "$num" != 2 ]; then
        on_gpu "$cfg" "$f" warp_ld warp_st wg_ld wg_st cta_ld cta_st
      fi
    done
  done
done
for o in 4 5; do
  f=$TMP/multi_$o.tx
  sed "s/^outer_ext = .*/outer_ext = $o/" "$D/multi_iter.tx" >"$f"
  if ! "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/m.low" 2>"$TMP/err"; then
    not_ok "multi_iter $o: lowers"; diag <"$TMP/err"; continue
  fi
  check "multi_iter $o: $((2 * o)) ldmatrix .x4" [ "$(grep -c 'T\.ptx\.ldmatrix(4, False, ' "$TMP/m.low")" = $((2 * o)) ]
  emulated "multi_iter $o" "$f" "$TMP/m.low" kernel
  on_gpu "multi_iter $o" "$f" kernel
done
# the m16n8k16 A fragment: one .x4 a warp at the run-time stage k
f=$D/mma_stages.tx
if "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/s.low" 2>"$TMP/err"; then
  check "mma_stages: ldmatrix .x4 at the stage's start, in the swizzle" \
    grep -q 'T\.ptx\.ldmatrix(4, False, T\.pointer_offset(A_smem, k \* 512 + tid % 16 \* 16 + tid // 16 % 2 \* 8 + tid // 32 \* 256 ^' "$TMP/s.low"
  emulated mma_stages "$f" "$TMP/s.low" kernel
  on_gpu mma_stages "$f" kernel
else
  not_ok "mma_stages: lowers"; diag <"$TMP/err"
fi
f=$D/slices.tx
if "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/c.low" 2>"$TMP/err"; then
  check "slices: words 0-3 and 4-7 of the registers, each half its own .x4" \
    [ "$(grep -c 'T\.ptx\.ldmatrix(4, False, .*_regs[_0-9]*\[0\], .*\[2\], .*\[4\], .*\[6\])\|T\.ptx\.ldmatrix(4, False, T\.pointer_offset(A_smem, 16 + .*\[8\], .*\[10\], .*\[12\], .*\[14\])' "$TMP/c.low")" = 2 ]
  check "slices: stmatrix into columns 8 .. 23" grep -q 'T\.ptx\.stmatrix(4, False, T\.pointer_offset(S2, 8 + ' "$TMP/c.low"
  emulated slices "$f" "$TMP/c.low" kernel
  on_gpu slices "$f" kernel
else
  not_ok "slices: lowers"; diag <"$TMP/err"
fi
f=$D/unrolled.tx
if "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/u.low" 2>"$TMP/err"; then
  check "unrolled: one .x4 a trip, its registers at the loop variable's words" \
    grep -q 'T\.ptx\.ldmatrix(4, False, T\.pointer_offset(A_smem, k \* 16 + .*R_regs\[k \* 16 // 16 \* 8\], R_regs\[k \* 16 // 16 \* 8 + 2\]' "$TMP/u.low"
  emulated unrolled "$f" "$TMP/u.low" kernel
  on_gpu unrolled "$f" kernel
else
  not_ok "unrolled: lowers"; diag <"$TMP/err"
fi
f=$D/tcgen05_atom.tx
if "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/t.low" 2>"$TMP/err"; then
  check "tcgen05_atom: four ldmatrix .x4" [ "$(grep -c 'T\.ptx\.ldmatrix(4, False, ' "$TMP/t.low")" = 4 ]
  emulated tcgen05_atom "$f" "$TMP/t.low" kernel
  on_gpu tcgen05_atom "$f" kernel
else
  not_ok "tcgen05_atom: lowers"; diag <"$TMP/err"
fi
# random fragments and shared layouts (tests/ldstmatrix/random.pl): the
# variant taken when, and only when, the registers are a fragment; B is A
for seed in $(seq 1 40); do
  f=$TMP/random_$seed.tx
  perl "$D/random.pl" $seed >"$f"
  want=$(sed -n 's/^# expect: //p' "$f")
  if ! "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/r.low" 2>"$TMP/err"; then
    not_ok "random $seed: lowers"; diag <"$TMP/err"; continue
  fi
  n=$(grep -c 'T\.ptx\.[ls][dt]matrix(' "$TMP/r.low")
  got=$([ "$n" -gt 0 ] && echo matrix || echo reg)
  check "random $seed: $want ($(sed -n 2p "$f" | cut -c3-))" [ "$got" = "$want" ]
  emulated "random $seed ld" "$f" "$TMP/r.low" ld
  emulated "random $seed st" "$f" "$TMP/r.low" st
  [ "$seed" -le 12 ] && on_gpu "random $seed" "$f" ld st
done
# the declines, from --explain
f=$D/declines.tx
for arch in sm_80 sm_90a; do
  if ! "$TXC_BIN/txc" --arch=$arch --explain --emit=ir "$f" -o "$TMP/d.low" 2>"$TMP/x"; then
    not_ok "declines ($arch): lowers"; diag <"$TMP/x"; continue
  fi
  grep 'ldstmatrix    10' "$TMP/x" >"$TMP/v"
  check "declines ($arch): float32" grep -q 'ldmatrix moves 16-bit elements (.b16); the copy is float32 -> float32' "$TMP/v"
  check "declines ($arch): a row per lane is no fragment" \
    grep -q "the registers of 'R' are no m8n8 fragment of the shared tile 'S_a': lane 1 of warp 0 holds element 8" "$TMP/v"
  if [ $arch = sm_80 ]; then
    n=$(grep -c chosen "$TMP/v"); grep -q 'stmatrix needs sm_90; the target is sm_80' "$TMP/v" || n=none
    check "declines (sm_80): the load takes ldmatrix, the store reg (stmatrix needs sm_90)" [ "$n" = 1 ]
  else
    check "declines (sm_90a): load and store take ldmatrix and stmatrix" \
      [ "$(grep -c 'T\.ptx\.[ls][dt]matrix(2, False' "$TMP/d.low")" = 2 ]
  fi
  for k in wide rows store; do
    emulated "declines ($arch) $k" "$f" "$TMP/d.low" "$k"
  done
done
done_testing
