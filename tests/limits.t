#!/usr/bin/env bash
# Hostile sizes: every way of growing an expression tree or the parser's
# stack, at 500,000 terms (ten times the 50,000 that once overflowed the C
# stack through the recursive walks), fed to every program that reads text
# or IR. Each must refuse with a clear error and exit status 1: never a
# signal, never an abort, never a sanitizer report.
. "$(dirname "$0")/lib.sh"
N=${LIMITS_TERMS:-500000}
progs="txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda txc-emu txc-run"

# gen KIND: a module whose one statement is the chain
gen() {
  perl -e '
    my ($k, $n) = @ARGV;
    my %bin = (add => "+", sub => "-", mul => "*", floordiv => "//", mod => "%", shl => "<<", shr => ">>",
               bitor => "|", bitxor => "^", bitand => "&", matmul => "@", and => " and ", or => " or ");
    my $e;
    if (exists $bin{$k}) { $e = join($bin{$k}, ("1") x $n) }
    elsif ($k eq "attr") { $e = "a" . (".b" x $n) }
    elsif ($k eq "index") { $e = "a" . ("[0]" x $n) }
    elsif ($k eq "slice") { $e = "a" . ("[0:1]" x $n) }
    elsif ($k eq "call") { $e = "f" . ("()" x $n) }
    elsif ($k eq "pow") { $e = join("**", ("2") x $n) }
    elsif ($k eq "neg") { $e = ("-" x $n) . "1" }
    elsif ($k eq "not") { $e = ("not " x $n) . "1" }
    elsif ($k eq "cond") { $e = ("1 if 1 else " x $n) . "1" }
    elsif ($k eq "elif") {
      print "if 1:\n    pass\n", ("elif 1:\n    pass\n" x $n);
      exit 0;
    }
    print "x = $e\n";
  ' "$1" "$N"
}

kinds="add sub mul floordiv mod shl shr bitor bitxor bitand matmul and or attr index slice call pow neg not cond elif"
for k in $kinds; do
  gen "$k" >"$TMP/$k.tx"
  for p in $progs; do
    args=()
    [ "$p" = txc-run ] && args=(--cubin /dev/null)
    "$TXC_BIN/$p" "${args[@]}" "$TMP/$k.tx" >"$TMP/out" 2>"$TMP/err"; rc=$?
    if [ $rc = 1 ] && grep -q '^[^ ]*:[0-9]*:[0-9]*: error: \(expression too deep\|nesting too deep\)' "$TMP/err" &&
       ! grep -q 'Sanitizer\|runtime error\|internal error' "$TMP/err"; then
      ok "$k x $N: $p refuses it"
    else
      not_ok "$k x $N: $p refuses it (exit $rc)"; head -c 2000 "$TMP/err" | diag
    fi
  done
done

# txc-layout reads a layout expression
for k in add mul attr index call; do
  case $k in
    add) perl -e 'print "S[(" . join("+", ("1") x $ARGV[0]) . ", 8) : (8, 1)]\n"' "$N" ;;
    mul) perl -e 'print "S[(" . join("*", ("1") x $ARGV[0]) . ", 8) : (8, 1)]\n"' "$N" ;;
    attr) perl -e 'print "S[(a" . (".b" x $ARGV[0]) . ", 8) : (8, 1)]\n"' "$N" ;;
    index) perl -e 'print "S[(a" . ("[0]" x $ARGV[0]) . ", 8) : (8, 1)]\n"' "$N" ;;
    call) perl -e 'print "S[(f" . ("()" x $ARGV[0]) . ", 8) : (8, 1)]\n"' "$N" ;;
  esac >"$TMP/layout.txt"
  "$TXC_BIN/txc-layout" - <"$TMP/layout.txt" >"$TMP/out" 2>"$TMP/err"; rc=$?
  if [ $rc = 1 ] && grep -q 'error: expression too deep' "$TMP/err"; then
    ok "$k x $N: txc-layout refuses it"
  else
    not_ok "$k x $N: txc-layout refuses it (exit $rc)"; head -c 2000 "$TMP/err" | diag
  fi
done

# The driver stops at its first pass with the same error.
"$TXC_BIN/txc" "$TMP/add.tx" -o "$TMP/out.cu" >/dev/null 2>"$TMP/err"; rc=$?
if [ $rc = 1 ] && grep -q 'error: expression too deep' "$TMP/err" && [ ! -e "$TMP/out.cu" ]; then
  ok "add x $N: the driver refuses it, no output"
else
  not_ok "add x $N: the driver refuses it, no output (exit $rc)"; diag <"$TMP/err"
fi

# Definitions that each use the previous one twice: following them naively
# takes 2^60 steps. The driver must finish, and lowering still be right.
perl -e '
  print "from tvm.script import tir as T\nfrom tvm.script import tirx as Tx\n\n\@T.prim_func\n",
        "def k(A_ptr: T.handle, B_ptr: T.handle):\n",
        "    A = T.match_buffer(A_ptr, (4096, 64), \"float16\")\n",
        "    B = T.match_buffer(B_ptr, (4096, 64), \"float16\")\n",
        "    T.device_entry()\n    bx = T.cta_id([32])\n    T.thread_id([128])\n    r0 = bx + 0\n";
  print "    r$_ = r" . ($_ - 1) . " + r" . ($_ - 1) . " * 0\n" for 1 .. 60;
  print "    A_smem = T.alloc_shared((128, 64), \"float16\")\n",
        "    Tx.cta.copy(A_smem[:, :], A[r60 * 128 : r60 * 128 + 128, :])\n",
        "    T.cuda.cta_sync()\n",
        "    Tx.cta.copy(B[r60 * 128 : r60 * 128 + 128, :], A_smem[:, :])\n";
' >"$TMP/defs.tx"
if timeout 60 "$TXC_BIN/txc" --emit=ir "$TMP/defs.tx" -o "$TMP/defs.out" 2>"$TMP/err" &&
   grep -q 'T.cuda.copy_bytes(s_ptr, g_ptr, 16)' "$TMP/defs.out"; then
  ok "60 doubly-used definitions: lowered in time, 16-byte copies"
else
  not_ok "60 doubly-used definitions: lowered in time, 16-byte copies"; diag <"$TMP/err"
fi

# Hardware limits per target (ir/target.def): 200 KiB of shared memory fits
# sm_90a and sm_100a, not sm_80 (163 KiB); the driver passes its --arch on.
cat >"$TMP/smem.tx" <<'EOF'
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float16")
    T.device_entry()
    T.thread_id([128])
    S = T.alloc_shared((400, 256), "float16")
EOF
for t in sm_90 sm_90a sm_100a; do
  check "204800 bytes of shared memory: accepted for $t" "$TXC_BIN/txc-parse" --target=$t "$TMP/smem.tx" -o "$TMP/out"
done
"$TXC_BIN/txc-parse" --target=sm_80 "$TMP/smem.tx" -o "$TMP/out" 2>"$TMP/err"; rc=$?
check "204800 bytes of shared memory: refused for sm_80" [ $rc = 1 ]
check "naming the limit, the arch and the numbers" grep -q "needs 204800 bytes of shared memory per CTA, with 'S'; sm_80 allows at most 166912 (163 KiB)" "$TMP/err"
"$TXC_BIN/txc" --arch=sm_80 --emit=cu "$TMP/smem.tx" -o "$TMP/out.cu" 2>"$TMP/err"; rc=$?
check "txc --arch=sm_80 refuses it too" [ "$rc $(grep -c 'sm_80 allows at most 166912' "$TMP/err")" = "1 1" ]

# --verify enumerates in bounded memory: a copy of 2^23 elements (a warp's
# 256 KiB of registers per lane) is refused at the op's line, not run.
cat >"$TMP/big.tx" <<'EOF'
from tvm.script import tirx as T
from tvm.script import tirx as Tx
from tvm.tirx.layout import S, TileLayout, laneid

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 262144), "float8_e4m3fn")
    T.device_entry()
    tid = T.thread_id([32])
    R = T.alloc_local((32, 262144), "float8_e4m3fn", layout=TileLayout(S[(32, 262144) : (1 @ laneid, 1)]))
    Tx.warp.copy(R[:, :], A[:, :])
EOF
"$TXC_BIN/txc" --stop-after=dispatch "$TMP/big.tx" -o "$TMP/bigd.tx"
"$TXC_BIN/txc-lower" --verify "$TMP/bigd.tx" >/dev/null 2>"$TMP/err"; rc=$?
check "--verify refuses 2^23 elements" [ "$rc $(grep -c 'bigd.tx:12:5: error: cannot lower Tx.warp.copy: verify: the copy has 8388608 elements; --verify enumerates at most 4194304' "$TMP/err")" = "1 1" ]
"$TXC_BIN/txc-lower" "$TMP/bigd.tx" -o "$TMP/low.tx" 2>"$TMP/err"; rc=$?
check "without --verify it lowers" [ $rc = 0 ]

# Linear passes: a kernel of 100,000 statements (every 100th a tile copy)
# through every program in well under the 26 s txc-lower once took alone.
perl "$TOP/bench/long_kernel.pl" 100000 >"$TMP/long.tx"
prev=$TMP/long.tx
for p in txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda; do
  timeout 20 "$TXC_BIN/$p" "$prev" -o "$TMP/long-$p.tx" 2>"$TMP/err"; rc=$?
  check "100,000 statements: $p in less than 20 s (exit $rc)" [ $rc = 0 ]
  [ $p = txc-cuda ] || prev=$TMP/long-$p.tx
done
timeout 20 "$TXC_BIN/txc-emu" "$TMP/long-txc-lower.tx" >/dev/null 2>"$TMP/err"; rc=$?
check "100,000 statements: txc-emu in less than 20 s (exit $rc)" [ $rc = 0 ]

# Just under the limit is accepted: 999 additions.
perl -e 'print "from tvm.script import tirx as T\nx = " . join("+", ("1") x 1000) .
  "\n\@T.prim_func\ndef k():\n    T.device_entry()\n"' >"$TMP/ok.tx"
check "1,000 terms (999 levels) parse" "$TXC_BIN/txc-parse" "$TMP/ok.tx" -o "$TMP/ok.out"
done_testing
