#!/usr/bin/env bash
# Golden IR after each pass: every example through the driver,
# `txc --arch=ARCH --dump-dir=DIR examples/NAME.tx`, against
# tests/golden/passes/ARCH/NAME/: NN-PASS.tx for each pass that ran (the
# CUDA of 07-cuda.tx is also the driver's output), and when a pass fails,
# NN-PASS.err, its diagnostics, under the name of that pass. A successful
# run says nothing on stderr. ARCH is sm_90a for every example, and also
# sm_100a for those that use tcgen05 (Blackwell). UPDATE=1 rewrites the
# golden files from the output, to be reviewed as a diff (git diff
# tests/golden/passes). The driver runs the pass programs (--pipe), so
# that a change in one program is a failure at its pass; the chain in one
# process must then write the same dumps, output and messages.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PASSES="01-parse 02-align 03-vectorize 04-partition 05-dispatch 06-lower 07-cuda"
update=${UPDATE:-0}

for f in examples/*.tx; do
  name=$(basename "$f" .tx)
  archs=sm_90a
  grep -q tcgen05 "$f" && archs="$archs sm_100a"
  for arch in $archs; do
    g=tests/golden/passes/$arch/$name d=$TMP/$arch.$name
    mkdir -p "$d"
    rm -rf "$d.one"
    "$TXC_BIN/txc" --arch=$arch --dump-dir="$d.one" "$f" -o "$TMP/one.cu" 2>"$TMP/one.err"; rc1=$?
    "$TXC_BIN/txc" --pipe --arch=$arch --dump-dir="$d" "$f" -o "$TMP/out.cu" 2>"$TMP/err"; rc=$?
    check "$arch/$name: in one process, the same dumps, output, messages and status as --pipe" \
      eval '[ $rc1 = $rc ] && diff -r "$d.one" "$d" >/dev/null && cmp -s "$TMP/one.err" "$TMP/err" &&
            { [ ! -e "$TMP/out.cu" ] || cmp -s "$TMP/one.cu" "$TMP/out.cu"; }'
    rm -f "$TMP/one.cu"
    # the pass that failed: the first one without a dump
    last=
    for p in $PASSES; do
      if [ -f "$d/$p.tx" ]; then last=$p; continue; fi
      [ $rc = 0 ] || cp "$TMP/err" "$d/$p.err"
      break
    done
    if [ $rc = 0 ]; then
      if [ -s "$TMP/err" ]; then not_ok "$arch/$name: txc says nothing on stderr"; diag <"$TMP/err"
      else ok "$arch/$name: txc says nothing on stderr"; fi
      check "$arch/$name: the driver's output is the last dump" cmp -s "$TMP/out.cu" "$d/$last.tx"
    else
      check "$arch/$name: txc fails with exit status 1 and no output" eval '[ $rc = 1 ] && [ ! -e "$TMP/out.cu" ]'
    fi
    rm -f "$TMP/out.cu"
    if [ "$update" = 1 ]; then
      mkdir -p "$g"
      for o in "$g"/*; do [ -e "$o" ] && [ ! -e "$d/$(basename "$o")" ] && rm "$o" && echo "# removed $o"; done
    fi
    have=$(cd "$d" && ls)
    want=$(cd "$g" 2>/dev/null && ls)
    if [ "$update" = 1 ] || [ "$have" = "$want" ]; then
      ok "$arch/$name: the passes that ran are those of $g"
    else
      not_ok "$arch/$name: the passes that ran are those of $g"
      diff <(echo "$want") <(echo "$have") | diag
    fi
    for o in $have; do
      [ -f "$g/$o" ] || { [ "$update" = 1 ] && cp "$d/$o" "$g/$o"; }
      [ -f "$g/$o" ] && same_file "$arch/$name/$o" "$g/$o" "$d/$o"
    done
  done
done
done_testing
