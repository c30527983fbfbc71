#!/usr/bin/env bash
# What a program does to what is already at its output path (-o FILE, the
# driver's output, txc-emu's --out NAME=FILE.npy): a regular file is replaced
# only on success and keeps its mode, a symbolic link is followed and stays,
# a FIFO or a device is written in place, and a read-only file (mode 0444)
# or a directory is refused, whoever runs it (root too).
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
EX=$TOP/examples/reg_roundtrip.tx
"$TXC_BIN/txc" --stop-after=dispatch "$EX" -o dispatched.tx
"$TXC_BIN/txc" --emit=ir "$EX" -o lowered.tx
printf 'def (\n' >bad.tx
# A fake nvcc for --emit=ptx: its "PTX" is the CUDA it reads (the last argument).
mkdir -p cuda/bin tmpdir
printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do [ "$1" = -o ] && out=$2; shift; done\nexec cp "$1" "$out"\n' >cuda/bin/nvcc
chmod +x cuda/bin/nvcc
export CUDA_HOME=$TMP/cuda TMPDIR=$TMP/tmpdir

WRITERS="txc-parse txc-lower txc-cuda txc-ir txc-cu txc-ptx txc-emu"
input() { case $1 in txc-lower) echo dispatched.tx ;; txc-cuda) echo lowered.tx ;; *) echo "$EX" ;; esac; }
# write WRITER IN OUT: runs one writer on IN with its output to OUT; stderr in err, status in rc.
write() {
  local t="timeout 30"
  case $1 in
  txc-ir | txc-cu | txc-ptx) $t "$TXC_BIN/txc" --emit="${1#txc-}" "$2" -o "$3" ;;
  txc-emu) $t "$TXC_BIN/txc-emu" "$2" --out B="$3" >/dev/null ;;
  *) $t "$TXC_BIN/$1" "$2" -o "$3" ;;
  esac 2>err
  rc=$?
}
# expect NAME CONDITION: one test point; on failure shows the status and stderr.
expect() {
  if eval "$2"; then ok "$1"; else not_ok "$1"; { echo "exit status $rc"; cat err; } | diag; fi
}
mode() { stat -c %a "$1"; }
# stop PID: waits up to 5 s for PID to end, then kills it.
stop() {
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

for w in $WRITERS; do
  in=$(input "$w")
  write "$w" "$in" "$w.ref"
  expect "$w: writes a new file" '[ $rc = 0 ] && [ -s $w.ref ]'

  mkdir "$w.reg" && echo old >"$w.reg/out" && chmod 640 "$w.reg/out"
  write "$w" "$in" "$w.reg/out"
  expect "$w: replaces a regular file, keeping its mode 0640" \
    '[ $rc = 0 ] && cmp -s $w.ref $w.reg/out && [ "$(mode $w.reg/out)" = 640 ] && [ "$(ls -A $w.reg)" = out ]'

  mkdir "$w.fail" && echo old >"$w.fail/out"
  write "$w" bad.tx "$w.fail/out"
  expect "$w: a failed run leaves the file as it was and no temporary file" \
    '[ $rc = 1 ] && [ "$(cat $w.fail/out)" = old ] && [ "$(ls -A $w.fail)" = out ]'

  mkdir "$w.link" && ln -s target "$w.link/out"
  write "$w" "$in" "$w.link/out"
  expect "$w: writes the file a symbolic link names; the link stays" \
    '[ $rc = 0 ] && [ -L $w.link/out ] && [ "$(readlink $w.link/out)" = target ] && cmp -s $w.ref $w.link/target'

  mkfifo "$w.fifo"
  cat "$w.fifo" >"$w.got" &
  reader=$!
  write "$w" "$in" "$w.fifo"
  { [ $rc = 0 ] && [ -p "$w.fifo" ]; } || kill "$reader" 2>/dev/null
  stop "$reader"
  expect "$w: writes into a FIFO, which stays a FIFO" '[ $rc = 0 ] && [ -p $w.fifo ] && cmp -s $w.ref $w.got'

  echo old >"$w.ro" && chmod 444 "$w.ro"
  write "$w" "$in" "$w.ro"
  expect "$w: refuses a read-only file (mode 0444), which stays as it was" \
    '[ $rc = 1 ] && [ "$(cat $w.ro)" = old ] && [ "$(mode $w.ro)" = 444 ] &&
     grep -qF "cannot write '\''$w.ro'\'': the file is read-only (mode 0444)" err'

  mkdir "$w.dir"
  write "$w" "$in" "$w.dir"
  expect "$w: refuses a directory" \
    '[ $rc = 1 ] && [ -d $w.dir ] && grep -qF "cannot write '\''$w.dir'\'': it is a directory" err'

  # /dev/null is shared with whatever else runs here; test it only while it is a device
  if [ -c /dev/null ]; then
    write "$w" "$in" /dev/null
    expect "$w: writes into /dev/null, which stays a character device" '[ $rc = 0 ] && [ -c /dev/null ]'
  else
    skip "$w: /dev/null" "/dev/null is not a character device on this machine"
  fi
done

mkdir dangling && ln -s ../dangling.out dangling/out
write txc-parse "$EX" dangling/out
expect "a link to nothing: the file it names is created" '[ $rc = 0 ] && [ -L dangling/out ] && cmp -s txc-parse.ref dangling.out'
ln -s txc-parse.ro ro-link
write txc-parse "$EX" ro-link
expect "a link to a read-only file is refused" \
  '[ $rc = 1 ] && [ -L ro-link ] && grep -qF "cannot write '\''ro-link'\'' (a link to '\''txc-parse.ro'\''): the file is read-only (mode 0444)" err'
check "--emit=ptx leaves nothing in TMPDIR" [ -z "$(ls -A tmpdir)" ]
done_testing
