#!/usr/bin/env bash
. "$(dirname "$0")/lib.sh"
# Tests of the driver alone: the stages are fake shell scripts in $TMP/bin,
# chained with TXC_PIPELINE, so these tests need no real pass program.

BIN=$TMP/bin
mkdir -p "$BIN"
cp "$TXC_BIN/txc" "$BIN/txc"
export TXC_BIN=$BIN
export TXC_PIPELINE=parse=txc-parse  # one stage; the built-in pipeline is tested at the end

# stage NAME BODY: a fake pass program. Fakes end with exec so that a
# signal kills the process txc waits for, as it would a real pass.
stage() {
  printf '#!/usr/bin/env bash\n%s\n' "$2" >"$BIN/$1"
  chmod +x "$BIN/$1"
}
stage txc-parse 'while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
if [ $# -gt 0 ] && [ "$1" != - ] && [ ! -r "$1" ]; then
  echo "$1: error: cannot open file" >&2; exit 1
fi
exec sed "s/^/parse /" "$@"'
stage fake-upper 'exec tr a-z A-Z'
stage fake-mark 'exec sed "s/\$/ !/"'
# The failing fakes read all of their input first, as real passes do, so
# the stages before them have finished and their dumps are complete.
stage fake-fail 'cat >/dev/null; echo "in.tx:2:3: error: bad thing" >&2; exit 1'
stage fake-kill 'cat >/dev/null; kill -KILL $$'
stage fake-quit 'echo early >&2; exit 1'
stage fake-big 'exec head -c 1048576 < <(yes 0123456789abcdef)'
stage fake-noread 'echo made up'
stage fake-slow 'cat >/dev/null; echo $$ >slow.pid; exec sleep 30'
stage fake-fds 'cat; exec ls /proc/self/fd >&2'
printf 'not a program\n' >"$BIN/fake-noexec"

cd "$TMP"
printf 'hello\nworld\n' >in.tx
printf 'parse hello\nparse world\n' >want1
printf 'PARSE HELLO\nPARSE WORLD\n' >want2
printf 'PARSE HELLO !\nPARSE WORLD !\n' >want3
THREE=parse=txc-parse,upper=fake-upper,mark=fake-mark

# txc ARGS...: runs txc under a time limit, sets $rc; stdout to out, stderr to err.
txc() {
  rc=0
  timeout 60 "$BIN/txc" "$@" >out 2>err || rc=$?
}
# expect RC: checks $rc and shows stderr when it differs.
expect() {
  [ "$rc" = "$1" ] && return
  echo "exit status $rc, want $1" | diag
  diag <err
  return 1
}
empty() { [ -z "$(ls -A "$1")" ]; }

txc in.tx
check 'one stage to stdout' expect 0
same_file 'one stage to stdout: output' want1 out
txc <in.tx
check 'one stage from stdin' expect 0
same_file 'one stage from stdin: output' want1 out
txc - <in.tx
check 'one stage from -' expect 0

mkdir o1
txc -o o1/res.tx in.tx
check 'one stage with -o' expect 0
same_file 'one stage with -o: output' want1 o1/res.tx
check 'one stage with -o: nothing else in the directory' [ "$(ls -A o1)" = res.tx ]
check 'one stage with -o: nothing on stdout' [ ! -s out ]
touch o1/ref
check 'one stage with -o: the umask gives the mode' [ "$(stat -c %a o1/res.tx)" = "$(stat -c %a o1/ref)" ]

(unset TXC_BIN; timeout 60 "$BIN/txc" in.tx >out 2>err)
rc=$?
check 'without TXC_BIN the stages are next to txc' expect 0
same_file 'without TXC_BIN: output' want1 out

export TXC_PIPELINE=$THREE
txc --dump-dir d3 -o res3.tx in.tx
check 'three stages with --dump-dir' expect 0
same_file 'three stages: output' want3 res3.tx
same_file 'three stages: dump 1' want1 d3/01-parse.tx
same_file 'three stages: dump 2' want2 d3/02-upper.tx
same_file 'three stages: dump 3' want3 d3/03-mark.tx
check 'three stages: only the dumps' [ "$(ls d3 | tr '\n' ' ')" = '01-parse.tx 02-upper.tx 03-mark.tx ' ]

txc --dump-dir=d3b in.tx
check 'three stages, --dump-dir=DIR to stdout' expect 0
same_file 'three stages to stdout: output' want3 out
same_file 'three stages to stdout: dump 3' want3 d3b/03-mark.tx

txc --stop-after=upper in.tx
check '--stop-after=upper' expect 0
same_file '--stop-after=upper: output is that of stage 2' d3/02-upper.tx out
txc --stop-after upper --dump-dir d4 in.tx
check '--stop-after upper with dumps' expect 0
same_file '--stop-after upper with dumps: output' want2 out
check '--stop-after upper with dumps: two dumps' [ "$(ls d4 | tr '\n' ' ')" = '01-parse.tx 02-upper.tx ' ]

txc --stop-after=nope in.tx
check 'unknown --stop-after: exit 2' expect 2
check 'unknown --stop-after: lists the passes' grep -q "unknown pass 'nope'.*: parse upper mark\$" err
check 'unknown --stop-after: no output' [ ! -s out ]

mkdir v
printf 'one\ntwo\n' >"v/it's in.tx"
(cd v && timeout 60 "$BIN/txc" -v --dump-dir dv -o res.tx "it's in.tx" 2>../err)
rc=$?
check '-v' expect 0
cmd=$(cat err)
want="$BIN/txc-parse 'it'\\''s in.tx' | tee dv/01-parse.tx | $BIN/fake-upper | tee dv/02-upper.tx | $BIN/fake-mark | tee dv/03-mark.tx > res.tx"
check '-v prints the pipeline' [ "$cmd" = "$want" ]
[ "$cmd" = "$want" ] || printf 'got:  %s\nwant: %s\n' "$cmd" "$want" | diag
mv v/res.tx v/txc.tx
mv v/dv v/txc-dv
mkdir v/dv
(cd v && bash -c "$cmd" >/dev/null 2>&1)
same_file '-v pipeline run by bash: same output' v/txc.tx v/res.tx
check '-v pipeline run by bash: same dumps' diff -r v/txc-dv v/dv

mkdir -p o2 d5
echo stale >d5/02-bad.tx
export TXC_PIPELINE=parse=txc-parse,bad=fake-fail,mark=fake-mark
txc --dump-dir d5 -o o2/res.tx in.tx
check 'failing stage: exit 1' expect 1
check 'failing stage: its message alone on stderr' [ "$(cat err)" = 'in.tx:2:3: error: bad thing' ]
check 'failing stage: no output, no temporary file' empty o2
check 'failing stage: its dump and the later ones removed' [ "$(ls d5)" = 01-parse.tx ]
same_file 'failing stage: earlier dump kept' want1 d5/01-parse.tx

echo previous >o2/res.tx
txc -o o2/res.tx in.tx
check 'failing stage: an existing output file is left alone' eval '[ "$(ls o2)" = res.tx ] && grep -qx previous o2/res.tx'

export TXC_PIPELINE=parse=txc-parse,quit=fake-quit,mark=fake-mark
txc --dump-dir d5b -o o2/res2.tx in.tx
check 'stage failing before reading its input: exit 1' expect 1
check 'stage failing before reading its input: no output' eval '[ ! -e o2/res2.tx ] && [ ! -e d5b/02-quit.tx ]'

export TXC_PIPELINE=parse=txc-parse,boom=fake-kill,mark=fake-mark
mkdir o3
txc --dump-dir d6 -o o3/res.tx in.tx
check 'killed stage: exit 1' expect 1
check 'killed stage: message' grep -qx "txc: error: stage 'boom' (fake-kill) killed by signal 9" err
check 'killed stage: no output, no temporary file' empty o3
check 'killed stage: its dump removed' [ "$(ls d6)" = 01-parse.tx ]

mkdir d5c
if [ -w /dev/full ]; then
  ln -s /dev/full d5c/02-upper.tx
  export TXC_PIPELINE=$THREE
  txc --dump-dir d5c -o o2/res3.tx in.tx
  check 'dump cannot be written: exit 1' expect 1
  check 'dump cannot be written: message' grep -qxF "txc: error: cannot write 'd5c/02-upper.tx': No space left on device" err
  check 'dump cannot be written: no output, only the complete dump' eval '[ ! -e o2/res3.tx ] && [ "$(ls d5c)" = 01-parse.tx ]'
else
  skip 'dump cannot be written' 'no /dev/full'
fi

export TXC_PIPELINE=parse=txc-parse,big=fake-big,noread=fake-noread
txc in.tx
check 'stage that never reads after one that writes 1 MB' expect 0
check 'stage that never reads: its output' grep -qx 'made up' out
txc --dump-dir d7 in.tx
check 'stage that never reads, with dumps' expect 0
check 'stage that never reads, with dumps: 1 MB dump' [ "$(wc -c <d7/02-big.tx)" = 1048576 ]

export TXC_PIPELINE=parse=txc-parse,big=fake-big,upper=fake-upper
yes 0123456789abcdef | head -c 1048576 | tr a-z A-Z >want-big
txc --dump-dir d8 -o big.tx in.tx
check '1 MB through the pipeline with dumps' expect 0
same_file '1 MB with dumps: output' want-big big.tx
same_file '1 MB with dumps: dump' want-big d8/03-upper.tx
txc in.tx
check '1 MB through the pipeline to stdout' expect 0
same_file '1 MB to stdout: output' want-big out

# A stage must see the same fds as when run alone: no stray pipe end.
"$BIN/fake-fds" </dev/null >/dev/null 2>want-fds
export TXC_PIPELINE=parse=txc-parse,fds=fake-fds,mark=fake-mark
txc --dump-dir d9 -o fds.tx in.tx
same_file 'a stage gets no extra fd' want-fds err
txc in.tx
same_file 'a stage gets no extra fd (no dumps)' want-fds err

export TXC_PIPELINE=parse=txc-parse,gone=fake-gone
txc -o gone.tx in.tx
check 'missing stage program: exit 1' expect 1
check 'missing stage program: message' grep -qxF "txc: error: cannot run '$BIN/fake-gone': No such file or directory" err
check 'missing stage program: no output' [ ! -e gone.tx ]
export TXC_PIPELINE=parse=txc-parse,noexec=fake-noexec
txc in.tx
check 'stage program not executable: exit 1' expect 1
check 'stage program not executable: message' grep -qxF "txc: error: cannot run '$BIN/fake-noexec': Permission denied" err
export TXC_PIPELINE=parse=txc-parse

txc nosuch.tx
check 'missing input file: exit 1' expect 1
check 'missing input file: only the stage message' [ "$(cat err)" = 'nosuch.tx: error: cannot open file' ]

export TXC_PIPELINE=parse=txc-parse,slow=fake-slow
mkdir o4
(
  "$BIN/txc" --dump-dir d10 -o o4/res.tx in.tx 2>err &
  for i in $(seq 100); do [ -s slow.pid ] && break; sleep 0.1; done
  kill -TERM $!
  wait $!
)
rc=$?
check 'SIGTERM to txc: killed by it' expect 143
check 'SIGTERM to txc: no output, no temporary file' empty o4
check 'SIGTERM to txc: unfinished dump removed' [ "$(ls d10)" = 01-parse.tx ]
check 'SIGTERM to txc: the stages are gone' eval '[ -s slow.pid ] && ! kill -0 "$(cat slow.pid)" 2>/dev/null'
export TXC_PIPELINE=parse=txc-parse

txc --dump-dir nodir/sub in.tx
check 'dump dir that cannot be created: exit 1' expect 1
check 'dump dir that cannot be created: message' grep -qxF "txc: error: cannot create 'nodir/sub': No such file or directory" err

txc --help
check '--help: exit 0' expect 0
check '--help: lists the options' grep -q -- '--dump-dir' out
check '--help: lists the passes' grep -q '01 parse *txc-parse' out
check '--help: mentions TXC_PIPELINE' grep -q TXC_PIPELINE out

txc --foo in.tx
check 'unknown option: exit 2' expect 2
check 'unknown option: message' [ "$(cat err)" = "txc: error: unknown option '--foo'
try 'txc --help'" ]
txc -o
check '-o without a file: exit 2' expect 2
txc a.tx b.tx
check 'two input files: exit 2' expect 2

# The built-in pipeline: the seven passes, in order, and what --arch,
# --explain and --emit=ir do to it (shown by -v, which prints the commands).
unset TXC_PIPELINE
for p in txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda; do
  stage $p 'exec cat'
done
txc --help
check 'built-in pipeline: --help lists the seven passes in order' eval \
  '[ "$(grep -oE "^  0[1-7] [a-z]+" out | awk "{print \$2}" | tr "\n" " ")" = "parse align vectorize partition dispatch lower cuda " ]'
txc -v --arch=sm_100a --explain in.tx
check 'built-in pipeline: runs' expect 0
check 'built-in pipeline: -v shows --target for the parser, dispatch and lowering and --arch for the backend' \
  grep -q "txc-parse --target=sm_100a --locations in.tx | .*txc-dispatch --target=sm_100a --explain --locations | .*txc-lower --target=sm_100a --locations | .*txc-cuda --arch=sm_100a\$" err
txc -v --emit=ir in.tx
check '--emit=ir stops after txc-lower' eval '! grep -q txc-cuda err && grep -q txc-lower err'
txc --arch=sm_75 in.tx
check 'an unknown --arch exits 2' expect 2
txc --emit=cubin in.tx
check '--emit=cubin without -o exits 2' expect 2
# --time-passes: a line per stage with its wall and CPU milliseconds, then
# the total, on stderr; the output is unchanged. A stage that sleeps 0.3 s
# shows it in its wall time, not in its CPU time.
stage txc-align 'sleep 0.3; exec cat'
txc in.tx
cp out plain.out
txc --time-passes in.tx
check '--time-passes: runs' expect 0
check '--time-passes: the output is unchanged' cmp -s out plain.out
check '--time-passes: a header, then stage / wall / cpu columns' eval \
  '[ "$(sed -n 2p err | awk "{print \$1, \$2, \$3}")" = "stage wall cpu" ] && grep -q "^txc: time per stage in ms" err'
check '--time-passes: one line per pass in order, then the total' eval \
  '[ "$(sed -n "3,\$p" err | awk "\$2 ~ /^[0-9]+[.][0-9][0-9]\$/ && \$3 ~ /^[0-9]+[.][0-9][0-9]\$/ {print \$1}" | tr "\n" " ")" = "parse align vectorize partition dispatch lower cuda total " ]'
check '--time-passes: the sleeping stage has 300 ms or more of wall time and less than 100 ms of CPU' \
  awk '$1 == "align" { found = 1; ok = $2 >= 300 && $3 < 100 } END { exit !(found && ok) }' err
check '--time-passes: the total wall time covers it' awk '$1 == "total" { exit !($2 >= 300) }' err
stage txc-align 'exec cat'
done_testing
