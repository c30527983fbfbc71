#!/usr/bin/env bash
# The driver's two ways of running the chain give the same bytes: in one
# process (the default; here with TXC_VERIFY=1, which verifies the IR after
# every pass, an internal error if it does not) and as the pipeline of pass
# programs (--pipe). For every .tx file of the repository: the output, the
# messages and the exit status, for one --emit of each (ir, cu and ptx in
# turn; every --emit and both targets for the examples), and --dump-dir's
# files for the examples. A program that compiles without a word must have
# run in one process (--time-passes says which). Under the sanitizers every
# third test file only (it must stay under a minute).
. "$(dirname "$0")/lib.sh"
cd "$TOP"
TXC=$TXC_BIN/txc
stride=1
[ "$TXC_BIN" = "$TOP/bin" ] || stride=3

# both NAME ARGS...: runs txc both ways on ARGS; $why says how they differ
# (empty: they do not); $inproc is 1 when the default run stayed in one
# process, $quiet when the pipeline said nothing and exited 0.
both() {
  TXC_VERIFY=1 "$TXC" --time-passes "$@" >"$TMP/a.out" 2>"$TMP/a.err0"; ra=$?
  "$TXC" --pipe --time-passes "$@" >"$TMP/b.out" 2>"$TMP/b.err0"; rb=$?
  sed '/^txc: time per stage/,$d' "$TMP/a.err0" >"$TMP/a.err"
  sed '/^txc: time per stage/,$d' "$TMP/b.err0" >"$TMP/b.err"
  why=
  [ $ra = $rb ] || why="exit status $ra, --pipe $rb"
  cmp -s "$TMP/a.out" "$TMP/b.out" || why="$why output differs"
  cmp -s "$TMP/a.err" "$TMP/b.err" || why="$why messages differ"
  inproc=0; quiet=0
  grep -q '^txc: time per stage in ms (the passes in this process' "$TMP/a.err0" && inproc=1
  [ $rb = 0 ] && [ ! -s "$TMP/b.err" ] && quiet=1
  grep -q '^txc: time per stage in ms (the passes run at once' "$TMP/b.err0" || why="$why --pipe did not run the pipeline"
  if [ $quiet = 1 ] && [ $inproc = 0 ]; then why="$why not run in one process"; fi
  if [ -n "$why" ]; then
    { echo "txc $*:$why"; diff "$TMP/a.out" "$TMP/b.out" | head -10; diff "$TMP/a.err" "$TMP/b.err" | head -10; } | diag
  fi
}

# Every example: each --emit, both targets (the sm_100a examples fail on
# sm_90a: then the messages are compared), and the dumps.
for f in examples/*.tx; do
  bad=
  for arch in sm_90a sm_100a; do
    for e in ir cu ptx; do
      both --arch=$arch --emit=$e "$f"
      [ -z "$why" ] || bad="$bad $arch/$e"
    done
  done
  check "$f: the same output, messages and status in one process and piped (ir, cu, ptx; sm_90a, sm_100a)${bad:+; not for$bad}" [ -z "$bad" ]
done

ran=0 quietn=0 n=0 bad=
i=0
for f in $(find tests -name '*.tx' | LC_ALL=C sort); do
  i=$((i + 1))
  [ $((i % stride)) = 0 ] || continue
  case $((i % 3)) in 0) e=ir ;; 1) e=cu ;; 2) e=ptx ;; esac
  both --emit=$e "$f"
  n=$((n + 1))
  [ $inproc = 1 ] && ran=$((ran + 1))
  [ $quiet = 1 ] && quietn=$((quietn + 1))
  [ -z "$why" ] || bad="$bad $f($e)"
done
check "$n test files: the same output, messages and status in one process and piped${bad:+; not for$bad}" [ -z "$bad" ]
check "every one of the $quietn test files that compile without a message ran in one process ($ran did)" \
  [ "$ran" -ge "$quietn" -a "$quietn" -gt 0 ]

# Without TXC_VERIFY, the passes hand their plans on in memory and write
# them only where the IR is printed (variants/plan.c): the IR after each
# pass is the pipeline's, keyword order included (dispatch= after plans=).
for f in examples/*.tx tests/tvm/*.tx; do
  bad=
  for p in align vectorize partition dispatch lower; do
    "$TXC" --stop-after=$p --emit=ir "$f" >"$TMP/a.out" 2>"$TMP/a.err"; ra=$?
    "$TXC" --pipe --stop-after=$p --emit=ir "$f" >"$TMP/b.out" 2>"$TMP/b.err"; rb=$?
    [ $ra = $rb ] && cmp -s "$TMP/a.out" "$TMP/b.out" && cmp -s "$TMP/a.err" "$TMP/b.err" || bad="$bad $p"
  done
  check "$f: the IR after each pass in one process (plans kept in memory) is the pipeline's${bad:+; not after$bad}" [ -z "$bad" ]
done

# --dump-dir: the same files, printed from the Module in one process.
for f in examples/copy_tile.tx examples/tma_ring.tx examples/ldgsts_load.tx; do
  rm -rf "$TMP/da" "$TMP/db"
  "$TXC" --emit=ptx --dump-dir="$TMP/da" "$f" -o "$TMP/a.ptx" 2>"$TMP/err"; ra=$?
  "$TXC" --pipe --emit=ptx --dump-dir="$TMP/db" "$f" -o "$TMP/b.ptx" 2>>"$TMP/err"; rb=$?
  check "$f: --dump-dir writes the same 7 files in one process as piped" \
    [ $ra = 0 -a $rb = 0 -a "$(ls "$TMP/da" | wc -l)" = 7 ] && diff -r "$TMP/da" "$TMP/db" >/dev/null &&
    cmp -s "$TMP/a.ptx" "$TMP/b.ptx"
done
rm -rf "$TMP/da" "$TMP/db"
"$TXC" --stop-after=dispatch --dump-dir="$TMP/da" examples/tma_ring.tx -o "$TMP/a.tx"
"$TXC" --pipe --stop-after=dispatch --dump-dir="$TMP/db" examples/tma_ring.tx -o "$TMP/b.tx"
check "--stop-after=dispatch: the same 5 dumps and output (IR without location comments)" \
  [ "$(ls "$TMP/da" | wc -l)" = 5 ] && diff -r "$TMP/da" "$TMP/db" >/dev/null && cmp -s "$TMP/a.tx" "$TMP/b.tx" &&
  ! grep -q '^#@' "$TMP/a.tx"

# Standard input: read once, and read again by the pipeline when a pass
# has something to say (a message, here a warning).
"$TXC" --emit=ptx --time-passes <examples/copy_tile.tx >"$TMP/a.ptx" 2>"$TMP/t"
"$TXC" --pipe --emit=ptx <examples/copy_tile.tx >"$TMP/b.ptx"
check "standard input in one process: the same PTX as piped" cmp -s "$TMP/a.ptx" "$TMP/b.ptx" &&
  grep -q 'in this process' "$TMP/t"
cat >"$TMP/warn.tx" <<'EOF'
from tvm.script import tir as T
from tvm.script import tirx as Tx

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (7, 5), "float32")
    B = T.match_buffer(B_ptr, (7, 5), "float32")
    T.device_entry()
    T.thread_id([128])
    S = T.alloc_shared((7, 5), "float32")
    Tx.cta.copy(S[:, :], A[:, :])
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], S[:, :])
EOF
"$TXC" --emit=cu <"$TMP/warn.tx" >"$TMP/a.cu" 2>"$TMP/a.err"; ra=$?
"$TXC" --pipe --emit=cu <"$TMP/warn.tx" >"$TMP/b.cu" 2>"$TMP/b.err"; rb=$?
check "standard input with a warning: the pipeline reads it again, the same output and messages" \
  [ $ra = $rb ] && cmp -s "$TMP/a.cu" "$TMP/b.cu" && cmp -s "$TMP/a.err" "$TMP/b.err" && [ -s "$TMP/a.cu" ]

# --time-passes names every stage in one process too.
"$TXC" --emit=ptx --time-passes examples/copy_tile.tx -o "$TMP/a.ptx" 2>"$TMP/t"
check "--time-passes in one process: a line per stage and the total" \
  [ "$(grep -cE '^  (parse|align|vectorize|partition|dispatch|lower|ptx|total) ' "$TMP/t")" = 8 ]
check "--time-passes in one process: each stage's MiB, the parse's more than none" \
  eval '[ "$(sed -n 2p "$TMP/t" | awk "{print \$4}")" = MiB ] &&
        [ "$(grep -cE "^  (parse|align|vectorize|partition|dispatch|lower|ptx) +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$TMP/t")" = 7 ] &&
        awk "\$1 == \"parse\" { exit !(\$4 > 0) }" "$TMP/t"'
"$TXC" --pipe --verify-each examples/copy_tile.tx >/dev/null 2>&1
check "--verify-each is an option" [ $? = 0 ]
done_testing
