#!/usr/bin/env bash
# txc-layout: who owns which element of a layout. Every expected owner is
# worked out by hand from the layout's definition (doc/txir.md section 7,
# tirx.md "Layouts"), never copied from the program's output.
. "$(dirname "$0")/lib.sh"
L=$TXC_BIN/txc-layout
ex=$TOP/examples
TIRX='TileLayout(S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid)'
TMEM='S[(2,128,112):(112@TCol,1@TLane,1@TCol)]'
SEED3='S[(32, 8) : (1 @ laneid, 1)]'
MMA='mma_shared_layout("float16", 3, (8, 64))'

# run ARGS...: runs txc-layout; sets $rc, stdout in $TMP/out, stderr in $TMP/err.
run() { rc=0; "$L" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?; }
# is WANT: the output is exactly the line WANT (shows what came instead).
is() {
  [ "$rc" = 0 ] && [ "$(cat "$TMP/out")" = "$1" ] && return
  { echo "want: $1"; echo "got ($rc):"; cat "$TMP/out" "$TMP/err"; } | diag
  return 1
}
# fails RC TEXT: exit status RC, TEXT on stderr, nothing on stdout.
fails() {
  [ "$rc" = "$1" ] && grep -qF -- "$2" "$TMP/err" && [ ! -s "$TMP/out" ] && return
  { echo "want exit $1 and: $2"; echo "got ($rc):"; cat "$TMP/err"; } | diag
  return 1
}
# row LABEL: the cells of the grid line whose row label is LABEL (the grid
# follows the first empty line: the column numbers, then the rows).
row() { awk -v r="$1" 'h == 2 && $1 == r { $1 = ""; print substr($0, 2); exit }
                      h == 1 { h = 2 } /^$/ && !h { h = 1 }' "$TMP/out"; }
colhead() { awk 'h == 1 { print; exit } /^$/ { h = 1 }' "$TMP/out"; }
# fits N: exit 0 and no line of the output longer than N.
fits() { [ "$rc" = 0 ] && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out")" -le "$1" ]; }
# status RC PATTERN FILE: exit status RC and PATTERN in FILE.
status() { [ "$rc" = "$1" ] && grep -q "$2" "$3"; }

# --apply: tirx.md's worked examples. (7, 15) is flat 127 = 7*16 + 15; split
# innermost first over (8, 2, 4, 2): m 1, laneid 3, warpid 1, then 7 * 4 on
# laneid: laneid 31, warpid 1 + 5 (offset) and + 4 (replica): {6, 10}.
run "$TIRX" --shape 8,16 --apply 7,15
check "tirx example: (7, 15) -> laneid 31, warpid {6, 10}, m 1" is "(7, 15) -> laneid 31, warpid {6, 10}, m 1"
run "$TIRX" --shape=8,16 --apply=0,0
check "tirx example: (0, 0) -> laneid 0, warpid {5, 9}, m 0" is "(0, 0) -> laneid 0, warpid {5, 9}, m 0"
# (1, 127, 111): 1 * 112 + 111 = 223 on TCol, 127 on TLane.
run "$TMEM" --shape 2,128,112 --apply 1,127,111
check "TMEM example: (1, 127, 111) -> TLane 127, TCol 223" is "(1, 127, 111) -> TLane 127, TCol 223"
run "$SEED3" --apply 5,3
check "seed 003: (5, 3) is lane 5, register 3" is "(5, 3) -> laneid 5, m 3"
# Row 1 is addresses 64..127: 16-byte chunk x = 8 + j/8, x ^ ((x >> 3) & 7)
# = 9 for j < 8, so (1, 0) is at 9 * 8 = 72.
run "$MMA" --shape 8,64 --apply 1,0
check "128-byte swizzle: (1, 0) is at 72" is "(1, 0) -> m 72"
run "$MMA" --shape 8,64 --apply 1,8
check "128-byte swizzle: (1, 8) is at 64" is "(1, 8) -> m 64"
# 16x64b, warp 1 (rows 32..63), row 37 = lane 5 of the first 16-row slab:
# (t >> 2) + 8 * (t & 1) = 5 gives t = 20 or 22; column 5 is odd, so
# ((t >> 1) & 1) = 1: t = 22, register (5 - 1) / 2 = 2. Thread 32 + 22.
run 'tcgen05_atom_layout("16x64b", (128, 8), "float32")' --shape 128,8 --apply 37,5
check "tcgen05 16x64b: (37, 5) is thread 54, register 2" is "(37, 5) -> tid_in_wg 54, m 2"
# The second 16-row slab of a warp is the next 4 registers: (16, 0) is
# lane 0 again (thread 0), register 4.
run 'tcgen05_atom_layout("16x64b", (128, 8), "float32")' --shape 128,8 --apply 16,0
check "tcgen05 16x64b: (16, 0) is thread 0, register 4" is "(16, 0) -> tid_in_wg 0, m 4"

# The grid.
run "$SEED3"
check "seed 003 grid: exit 0" [ "$rc" = 0 ]
check "seed 003 grid: row 1 is lane 1, registers 0..7" [ "$(row 1)" = "T1:0 T1:1 T1:2 T1:3 T1:4 T1:5 T1:6 T1:7" ]
check "seed 003 grid: row 31 is lane 31" [ "$(row 31)" = "T31:0 T31:1 T31:2 T31:3 T31:4 T31:5 T31:6 T31:7" ]
check "seed 003 grid: rows 2-30 elided, lane +1 per row (so (5, 3) is T5:3)" \
  grep -qxF "   ... rows 2-30: same as row 1 with laneid +1 per row ..." "$TMP/out"
check "seed 003 grid: the shape defaults to the shard's extents" grep -q "^shape: (32, 8)" "$TMP/out"
check "seed 003 grid: says what a cell is" grep -q "^cell: T<laneid>:<m>" "$TMP/out"
check "seed 003 grid: fits 80 columns" fits 80
run "$TIRX" --shape 8,16
check "tirx grid: (0, 0) is warp 5 lane 0, shared with another warp" [ "$(row 0 | awk '{ print $1 }')" = "w5.l0:0+" ]
# (7, 15) from above: laneid 31, warpid 6 (and 10), m 1.
check "tirx grid: (7, 15) is w6.l31:1+" [ "$(row 7 | awk '{ print $NF }')" = "w6.l31:1+" ]
check "tirx grid: a legend explains the +" grep -q "^+: " "$TMP/out"
check "tirx grid: rows 2-6 move by 4 lanes" grep -qxF "   ... rows 2-6: same as row 1 with laneid +4 per row ..." "$TMP/out"
# Swizzled rows: row 1 from above; row 2 (128..191) has x = 16 + j/8 and
# x ^ 2, so its chunks run 18, 19, 16, 17, ...
run "$MMA" --shape 8,64 --width 400
check "swizzle grid: row 1 starts 72..79 then 64" [ "$(row 1 | cut -d' ' -f1-10)" = "72 73 74 75 76 77 78 79 64 65" ]
check "swizzle grid: row 2 starts 144 then 152 136" [ "$(row 2 | cut -d' ' -f1,9,17,25)" = "144 152 128 136" ]
check "swizzle grid: no row elided" [ "$(grep -c '^ *[0-9]' "$TMP/out")" = 9 ]
# 32x32b over 128 rows: thread r holds row r, the register is the column.
run 'tcgen05_atom_layout("32x32b", (128, 16), "float32")' --shape 128,16
check "32x32b grid: rows 2-126 elided, thread +1 per row" \
  grep -qxF "   ... rows 2-126: same as row 1 with tid_in_wg +1 per row ..." "$TMP/out"
check "32x32b grid: the last row is thread 127, first and last columns" \
  [ "$(row 127 | awk '{ print $1, $2, $(NF-1), $NF }')" = "T127:0 T127:1 .. T127:15" ]
check "32x32b grid: the column header ends with .. 15" [ "$(colhead | awk '{ print $1, $(NF-1), $NF }')" = "0 .. 15" ]
# Columns: width 40, row labels 1 wide, cells 3 wide (127): (40 - 1) / 4 = 9
# cells fit, so 7 columns, the .. column and the last.
run 'S[(2, 64)]' --width 40
check "column elision at width 40" [ "$(row 1)" = "64 65 66 67 68 69 70 .. 127" ]
check "one-iter shard: shape (1, N)" grep -q "^shape: (1, 8)" <("$L" 'S[8]')
# TMEM rows are (i, j) of the 3-d shape; lane + 1 per row within each i.
run "$TMEM" --shape 2,128,112
check "TMEM grid: row 1,0 starts at lane 0 column 112" [ "$(row 1,0 | awk '{ print $1 }')" = "0:112" ]
check "TMEM grid: rows 1,2-1,126 elided" grep -qxF "   ... rows 1,2-1,126: same as row 1,1 with TLane +1 per row ..." "$TMP/out"
run "$TMEM" --shape 2,128,112 --dtype float16
check "TMEM grid: 16-bit elements get the packing note" grep -q "^note: TCol counts float16 elements; a 32-bit column holds 2" "$TMP/out"

for args in "$TIRX --shape 8,16" "$TMEM --shape 2,128,112" "$MMA --shape 8,64" \
            'tcgen05_atom_layout("16x256b", (128, 16), "float32") --shape 128,16'; do
  eval "set -- $(printf '%q' "${args%% --shape*}") --shape ${args##*--shape }"
  run "$@" --width 60
  check "--width 60 holds: ${1:0:30}..." fits 60
done
run "$TIRX" --shape 8,16 --width 32
check "--width 32 (the least) holds" fits 32

# --explain: the steps of the tirx example, by hand as above.
run "$TIRX" --shape 8,16 --apply 7,15 --explain
check "explain: flat index" grep -q "flat index 127$" "$TMP/out"
check "explain: innermost iter" grep -qF "iter 3 (extent 2, stride 1): 127 % 2 = 1 -> m += 1" "$TMP/out"
check "explain: outermost iter" grep -qF "iter 0 (extent 8, stride 4 @ laneid): 7 (outermost, not reduced) -> laneid += 28" "$TMP/out"
check "explain: offsets" grep -qxF "offsets: warpid += 5" "$TMP/out"
check "explain: the replica" grep -qF "replica 1 of 2: warpid += 4 -> laneid 31, warpid 10, m 1" "$TMP/out"
check "explain: result" grep -qxF "result: (7, 15) -> laneid 31, warpid {6, 10}, m 1" "$TMP/out"
run "$MMA" --shape 8,64 --apply 1,0 --explain
check "explain: the swizzle step" grep -qF "x = 64 >> 3 = 8; x ^ ((x >> 3) & 7) = 9; m = (9 << 3) + 64 % 8 = 72" "$TMP/out"
run "$SEED3" --explain
check "explain without --apply: element 0" grep -qxF "result: (0, 0) -> laneid 0, m 0" "$TMP/out"

# --buffer: R of reg_roundtrip.tx has seed 003's layout and shape.
run --buffer R "$ex/reg_roundtrip.tx"
"$L" "$SEED3" >"$TMP/seed3"
check "--buffer R examples/reg_roundtrip.tx: the same grid as its layout" cmp -s "$TMP/out" "$TMP/seed3"
run --buffer R "$ex/reg_roundtrip.tx" --apply 31,7
check "--buffer R: (31, 7) is lane 31, register 7" is "(31, 7) -> laneid 31, m 7"
run --buffer B "$ex/reg_roundtrip.tx" --apply 5,3
check "--buffer B (no layout): row-major, (5, 3) at 5 * 8 + 3" is "(5, 3) -> m 43"
run --buffer R - --apply 1,1 <"$ex/reg_roundtrip.tx"
check "--buffer reads the program from stdin" is "(1, 1) -> laneid 1, m 1"
cat >"$TMP/two.tx" <<'EOF'
from tvm.script import tir as T
from tvm.tirx.layout import S, TileLayout


@T.prim_func
def k1(X_ptr: T.handle):
    X = T.match_buffer(X_ptr, (4, 8), "float32")
    T.device_entry(); T.cta_id([1]); tid = T.thread_id([32])


@T.prim_func
def k2(X_ptr: T.handle):
    X = T.match_buffer(X_ptr, (8, 4), "float32")
    T.device_entry(); T.cta_id([1]); tid = T.thread_id([32])
    Y = T.alloc_buffer((8, 4), "float32", scope="shared", layout=TileLayout(S[(8, 4) : (1, 8)]))
EOF
run --buffer X "$TMP/two.tx"
check "--buffer in two kernels: exit 1, asks for --kernel" fails 1 "buffer 'X' is in kernels 'k1' and 'k2': pick one with --kernel"
run --buffer X --kernel k2 "$TMP/two.tx" --apply 7,3
check "--kernel k2: its (8, 4) X, (7, 3) at 31" is "(7, 3) -> m 31"
run --buffer Y "$TMP/two.tx" --apply 1,2
check "--buffer Y: column-major (1, 2) at 1 + 2 * 8" is "(1, 2) -> m 17"
run --buffer Q "$ex/reg_roundtrip.tx"
check "unknown --buffer: exit 1" fails 1 "no buffer 'Q'"
run --buffer Y --kernel k1 "$TMP/two.tx"
check "--buffer not in --kernel: exit 1" fails 1 "no buffer 'Y' in kernel 'k1'"
run --buffer X --kernel k3 "$TMP/two.tx"
check "unknown --kernel: exit 1" fails 1 "no kernel 'k3'"
run --buffer X "$TMP/missing.tx"
check "--buffer with a missing file: exit 1" fails 1 "cannot read"

# The layout from stdin, output to a file.
echo "$SEED3" | "$L" - -o "$TMP/o1"
"$L" "$SEED3" -o "$TMP/o2"
check "stdin and -o: the same grid" cmp -s "$TMP/o1" "$TMP/seed3"
check "-o FILE: the same grid" cmp -s "$TMP/o2" "$TMP/seed3"

# The picture.
run 'wg_local_layout(32)' --shape 128,32 --svg "$TMP/wg.svg"
check "--svg alone: exit 0, nothing on stdout" fits 0
check "svg: starts with <svg" [ "$(head -c 4 "$TMP/wg.svg")" = "<svg" ]
check "svg: ends with </svg>" [ "$(tail -n 1 "$TMP/wg.svg")" = "</svg>" ]
# 4096 cells, 128 legend swatches (one per thread), one background.
check "svg: 4096 + 128 + 1 rects" [ "$(grep -o '<rect' "$TMP/wg.svg" | wc -l)" = 4225 ]
check "svg: one tooltip per cell" [ "$(grep -o '<title>(' "$TMP/wg.svg" | wc -l)" = 4096 ]
check "svg: every text closed" [ "$(grep -o '<text' "$TMP/wg.svg" | wc -l)" = "$(grep -o '</text>' "$TMP/wg.svg" | wc -l)" ]
check "svg: every group closed" [ "$(grep -o '<g ' "$TMP/wg.svg" | wc -l)" = "$(grep -o '</g>' "$TMP/wg.svg" | wc -l)" ]
check "svg: thread 127 register 31 is the cell (127, 31)" grep -qF "<title>(127, 31): T127:31</title>" "$TMP/wg.svg"
if command -v xmllint >/dev/null; then
  check "svg: well-formed XML" xmllint --noout "$TMP/wg.svg"
else
  skip "svg: well-formed XML" "no xmllint"
fi
run "$SEED3" --svg "$TMP/s3.svg" --color warp -o "$TMP/grid"
check "--svg with -o: the grid goes to -o" cmp -s "$TMP/grid" "$TMP/seed3"
# One warp: 256 cells, 1 swatch, the background.
check "--color warp: one colour for one warp" [ "$(grep -o '<rect' "$TMP/s3.svg" | wc -l)" = 258 ]
check "svg: the cell (5, 3) is lane 5 register 3, labelled T5 r3" grep -q '<title>(5, 3): T5:3</title></rect><text [^>]*>T5 r3</text>' "$TMP/s3.svg"
run "$TIRX" --shape 8,16 --svg "$TMP/t.svg"
check "svg: a replicated cell lists its owners" grep -qF "<title>(7, 15): w6.l31:1, w10.l31:1</title>" "$TMP/t.svg"
run "$TMEM" --shape 2,128,112 --svg "$TMP/tm.svg"
# Tensor memory: a row per lane, a column per 32-bit column, the cell
# labelled with the element it holds: (1, 127, 111) is at lane 127, column
# 112 + 111.
check "svg: TMEM cell at lane 127 column 223 holds (1, 127, 111)" \
  grep -q '<title>lane 127, column 223: (1,127,111)</title></rect><text [^>]*>(1,127,111)</text>' "$TMP/tm.svg"
# 128 lanes x 224 columns, a legend swatch per lane, the empty swatch, the background.
check "svg: TMEM, a cell per lane and column" [ "$(grep -o '<rect' "$TMP/tm.svg" | wc -l)" = $((28672 + 128 + 1 + 1)) ]
run "$SEED3" --svg "$TMP/l.svg" --color lane
check "--color lane: 32 colours" [ "$(grep -o '<rect' "$TMP/l.svg" | wc -l)" = $((256 + 32 + 1)) ]
run 'S[(8, 8)]' --svg "$TMP/m.svg" --color warp
check "--color warp on a memory layout: exit 1" fails 1 "--color warp needs a layout with thread axes"
run 'S[(512, 512)]' --svg "$TMP/big.svg"
check "a picture too large: exit 1" fails 1 "at most 65536 elements"
check "and no file" [ ! -e "$TMP/big.svg" ]

# The pictures of register and tensor-memory layouts, checked cell by cell
# against owners worked out here in Perl from ptx.md's lane/column table and
# the layouts' definitions (doc/txir.md section 7). cells.pl lists the cells
# of a picture: title, text, fill, x, y, height (tab-separated).
cat >"$TMP/cells.pl" <<'EOF'
while (<>) {
  next unless m{<rect x="(\d+)" y="(\d+)" width="\d+" height="(\d+)" fill="#(\w{6})"><title>([^<]*)</title></rect>(?:<text [^>]*>([^<]*)</text>)?};
  next if $5 =~ /^(thread|lane) \d+$/;   # legend swatches
  print join("\t", $5, $6 // "", $4, $1, $2, $3), "\n";
}
EOF
# Hue (degrees) and lightness (0-1) of a fill.
cat >"$TMP/hue.pl" <<'EOF'
sub hue { my @c = map { hex($_) / 255 } unpack("(A2)3", $_[0]);
  my ($R, $G, $B) = @c; my ($min, $max) = (sort { $a <=> $b } @c)[0, 2];
  my $d = $max - $min; return 0 unless $d;
  my $h = $max == $R ? ($G - $B) / $d : $max == $G ? 2 + ($B - $R) / $d : 4 + ($R - $G) / $d;
  $h *= 60; $h += 360 if $h < 0; return $h; }
sub light { my @c = sort { $a <=> $b } map { hex($_) / 255 } unpack("(A2)3", $_[0]); ($c[0] + $c[2]) / 2 }
sub hdist { my $d = abs($_[0] - $_[1]); $d > 180 ? 360 - $d : $d }
1;
EOF
# regs.pl SHAPE ROWS COLS < cells: every cell (i, j) of a tcgen05_atom_layout
# picture says T<thread> r<register> from ptx.md's table (register r of
# lane t; warp w reads lanes 32w.. of its quarter; a .16x* shape issues twice
# per warp, rows 0 and 16, the second issue's registers after the first's),
# and its colour has the hue of warp thread/32 and a shade per lane.
cat >"$TMP/regs.pl" <<'EOF'
require "$ENV{TMP}/hue.pl";
my ($shape, $rows, $cols) = @ARGV;
my %tab = (   # [lane, column] of register r of lane t, C0 = L0 = 0
  "32x32b"  => sub { my ($t, $r) = @_; ($t, $r) },
  "16x64b"  => sub { my ($t, $r) = @_; (($t >> 2) + 8 * ($t & 1), (($t >> 1) & 1) + 2 * $r) },
  "16x128b" => sub { my ($t, $r) = @_; (($t >> 2) + 8 * ($r & 1), ($t & 3) + 4 * ($r >> 1)) },
  "16x256b" => sub { my ($t, $r) = @_; (($t >> 2) + 8 * (($r >> 1) & 1), 2 * ($t & 3) + ($r & 1) + 8 * ($r >> 2)) });
my $slab = $shape eq "32x32b" ? 32 : 16;
my $nreg = $cols * $slab / 32;  # registers per issue
my (%want, %warp);
for my $t (0 .. 31) { for my $r (0 .. $nreg - 1) {
  my ($l, $c) = $tab{$shape}->($t, $r);
  for my $w (0 .. $rows / 32 - 1) { for my $s (0 .. 32 / $slab - 1) {
    my $i = 32 * $w + $slab * $s + $l;
    $want{"$i,$c"} = "T" . (32 * $w + $t) . " r" . ($r + $nreg * $s); $warp{"$i,$c"} = $w; } } } }
my ($n, $bad, %hues, %fills, %l0, %l31) = (0, 0);
while (<STDIN>) { chomp; my ($title, $text, $fill) = split /\t/;
  my ($i, $j) = $title =~ /^\((\d+), (\d+)\)/ or next; $n++;
  if (($want{"$i,$j"} // "none") ne $text) { print STDERR "($i, $j): want $want{qq($i,$j)}, got $text\n" if $bad++ < 5; }
  my $w = $warp{"$i,$j"}; push @{ $hues{$w} }, hue($fill); $fills{$w}{$fill} = 1;
  my ($tid) = $want{"$i,$j"} =~ /T(\d+)/; $l0{$w} = light($fill) if $tid % 32 == 0; $l31{$w} = light($fill) if $tid % 32 == 31; }
print STDERR "$n cells, want ", $rows * $cols, "\n" and exit 1 if $n != $rows * $cols;
exit 1 if $bad;
my @w = sort keys %hues;
print STDERR scalar(@w), " warps, want ", $rows / 32, "\n" and exit 1 if @w != $rows / 32;
for my $w (@w) { my $h0 = $hues{$w}[0];
  for (@{ $hues{$w} }) { print STDERR "warp $w: hue $_ vs $h0\n" and exit 1 if hdist($_, $h0) > 4 }
  print STDERR "warp $w: ", scalar(keys %{ $fills{$w} }), " shades, want 32\n" and exit 1 if keys %{ $fills{$w} } != 32;
  print STDERR "warp $w: lane 0 not darker than lane 31\n" and exit 1 unless $l0{$w} < $l31{$w};
  for my $v (@w) { next if $v <= $w;
    print STDERR "warps $w and $v: hues too close\n" and exit 1 if hdist($hues{$w}[0], $hues{$v}[0]) < 30 } }
EOF
for sc in "32x32b 128 4" "16x64b 128 8" "16x128b 128 8" "16x256b 128 16"; do
  set -- $sc
  run "tcgen05_atom_layout(\"$1\", ($2, $3), \"float32\")" --shape "$2,$3" --svg "$TMP/r.svg"
  perl "$TMP/cells.pl" "$TMP/r.svg" >"$TMP/cells"
  check "svg $1 atom of a warpgroup: every cell T<thread> r<register> as ptx.md's table says, a hue per warp (4), 32 shades each" \
    env TMP="$TMP" perl "$TMP/regs.pl" "$1" "$2" "$3" <"$TMP/cells"
done
run 'tcgen05_atom_layout("16x64b", (128, 8), "float32")' --shape 128,8 --svg "$TMP/r.svg"
check "svg 16x64b: (37, 5) is labelled T54 r2 (worked out above)" \
  grep -q '<title>(37, 5): [^<]*</title></rect><text [^>]*>T54 r2</text>' "$TMP/r.svg"
check "svg 16x64b: a legend line per warp" [ "$(grep -c '>warp [0-3] (T[0-9]*-T[0-9]*)</text>' "$TMP/r.svg")" = 4 ]
check "svg 16x64b: well-formed XML" xmllint --noout "$TMP/r.svg"
# Several thread axes: w<warp>.l<lane> r<register>; warp 6 lane 31 holds (7, 15).
run "$TIRX" --shape 8,16 --svg "$TMP/t.svg"
check "svg: with warpid and laneid, (7, 15) is labelled w6.l31 r1+" \
  grep -q '<title>(7, 15): [^<]*</title></rect><text [^>]*>w6.l31 r1+</text>' "$TMP/t.svg"

# tmem.pl PERL-EXPR ROWS COLS BITS < cells: the element (i, j) of the layout
# lies at lane LANE and element column TCOL (PERL-EXPR sets $lane and $tcol
# from $i and $j, written from the layout's definition); a 32-bit column
# holds 32 / BITS of them, TCol 2c in bits 0-15 and 2c+1 in bits 16-31 for
# 16-bit types. Every cell of the picture holds what that says or nothing.
cat >"$TMP/tmem.pl" <<'EOF'
require "$ENV{TMP}/hue.pl";
my ($f, $rows, $cols, $bits) = @ARGV;
my $per = $bits < 32 ? 32 / $bits : 1;
my (%want, $lane, $tcol);
for our $i (0 .. $rows - 1) { for our $j (0 .. $cols - 1) {
  eval $f; die $@ if $@;
  my $k = "lane $lane, column " . int($tcol / $per);
  $k .= ", bits " . ($tcol % $per) * $bits . "-" . (($tcol % $per) * $bits + $bits - 1) if $per > 1;
  $want{$k} = "($i,$j)"; } }
my ($n, $bad, $full, %hue, %y, %h) = (0, 0, 0);
while (<STDIN>) { chomp; my ($title, $text, $fill, $x, $y, $ht) = split /\t/;
  my ($k, $e) = $title =~ /^(lane \d+, column \d+(?:, bits \d+-\d+)?): (.*)$/ or next; $n++;
  my ($l) = $k =~ /^lane (\d+)/; $y{$l} = $y; $h{$l} = $ht;
  my $w = $want{$k} // "no element";
  if ($e ne $w || ($w ne "no element" && $text ne $w)) { print STDERR "$k: want $w, got $e / $text\n" if $bad++ < 5; next }
  next if $w eq "no element"; $full++;
  $hue{int($l / 32)}{int(hue($fill) / 4 + 0.5)} = 1; }
print STDERR "$full cells hold an element, want ", scalar(keys %want), "\n" and exit 1 if $full != keys %want;
exit 1 if $bad;
# the lanes run down the picture, one row each
for (1 .. 127) { print STDERR "lane $_ is not below lane ", $_ - 1, "\n" and exit 1 unless $y{$_} == $y{0} + $_ * ($y{1} - $y{0}) }
# a hue per quarter that holds elements
for my $q (keys %hue) { print STDERR "quarter $q: ", scalar(keys %{ $hue{$q} }), " hues\n" and exit 1 if keys %{ $hue{$q} } > 2 }
open my $fh, "<", $ENV{SVG} or die; my @rules;
while (<$fh>) { push @rules, $1 if /<line [^>]*y1="([\d.]+)"[^>]*class="quarter"/ }
# the heavy rules: one in the gap above lanes 0, 32, 64, 96 and below 127, none elsewhere
my @want = map { my $l = $_ * 32; $l < 128 ? [$l ? $y{$l - 1} + $h{$l - 1} - 1 : $y{0} - 2, $y{$l}] : [$y{127} + $h{127} - 1, $y{127} + $h{127} + 1] } 0 .. 4;
print STDERR scalar(@rules), " rules, want 5\n" and exit 1 if @rules != 5;
for my $b (@want) { print STDERR "no rule between $b->[0] and $b->[1] (@rules)\n" and exit 1 unless grep { $_ >= $b->[0] && $_ <= $b->[1] } @rules }
EOF
# tmem PERL-EXPR ROWS COLS BITS: checks $TMP/m.svg with tmem.pl.
tmem() { perl "$TMP/cells.pl" "$TMP/m.svg" >"$TMP/cells"; env TMP="$TMP" SVG="$TMP/m.svg" perl "$TMP/tmem.pl" "$@" <"$TMP/cells"; }
# Seed 000: 128 x 8 float16, row i in lane i, column j in TCol j: the
# 32-bit column j / 2, bits 0-15 for even j, 16-31 for odd.
run 'TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)])' --dtype float16 --svg "$TMP/m.svg"
check "svg seed 000 tmem (128 x 8 float16): every half column holds its element, quarter rules at 32, 64, 96" \
  tmem '$lane = $i; $tcol = $j' 128 8 16
check "svg seed 000 tmem: (37, 5) in lane 37, column 2, bits 16-31" \
  grep -q '<title>lane 37, column 2, bits 16-31: (37,5)</title></rect><text [^>]*>(37,5)</text>' "$TMP/m.svg"
check "svg seed 000 tmem: 128 lanes x 4 columns x 2 halves, no empty cell" \
  [ "$(grep -c '<title>lane [0-9]*, column [0-9]*, bits [0-9-]*: (' "$TMP/m.svg")" = 1024 ]
for q in 0 1 2 3; do
  check "svg seed 000 tmem: quarter $q labelled lanes $((32 * q))-$((32 * q + 31))" \
    grep -q ">lanes $((32 * q))-$((32 * q + 31))</text>" "$TMP/m.svg"
done
check "svg seed 000 tmem: well-formed XML" xmllint --noout "$TMP/m.svg"
# Datapath D: the same shape as seed 000 in float32, one element per column.
run 'tmem_datapath_layout("D", 128, 4)' --svg "$TMP/m.svg"
check "svg datapath D 128 x 4 float32" tmem '$lane = $i; $tcol = $j' 128 4 32
# F, sub-slab 1: row r in lane 32 (r / 16) + 16 + r % 16 (lanes 16-31 of each quarter).
run 'tmem_datapath_layout("F", 64, 8, sub_slab=1)' --shape 64,8 --svg "$TMP/m.svg"
check "svg datapath F sub-slab 1: rows in lanes 16-31 of each quarter, lanes 0-15 empty" \
  tmem '$lane = 32 * int($i / 16) + 16 + $i % 16; $tcol = $j' 64 8 32
# B: row r's first half in lane r, its second half in lane 64 + r.
run 'tmem_datapath_layout("B", 64, 8)' --shape 64,8 --svg "$TMP/m.svg"
check "svg datapath B: columns 4-7 of row r in lane 64 + r" tmem '$lane = $i + 64 * int($j / 4); $tcol = $j % 4' 64 8 32
run 'tmem_datapath_layout("G", 32, 8)' --shape 32,8 --dtype float16 --svg "$TMP/m.svg"
check "svg datapath G, float16: quarter k of the columns in lanes 32k.." \
  tmem '$lane = $i + 32 * int($j / 2); $tcol = $j % 2' 32 8 16

# Bad input: exit 1 with a message; the caret under the token.
run 'S[(32, 8) : (1 @ laneid 1)]'
check "malformed layout: exit 1, file:line:col" fails 1 "<layout>:1:29: error:"
check "malformed layout: the line as parsed" grep -qxF "    L = S[(32, 8) : (1 @ laneid 1)]" "$TMP/err"
check "malformed layout: the caret under the 1" grep -qx "     \{28\}^" "$TMP/err"
run 'S[(32, 8) : (1 @ laneid, 1)]' --shape 16,8
check "a shape of another size: exit 1" fails 1 "the shape (16, 8) has 128 elements but the layout has 256"
run "$TMEM"
check "three iters and no --shape: exit 1" fails 1 "give the logical shape with --shape"
run '5'
check "not a layout: exit 1 at the expression" fails 1 "<layout>:1:5: error: this is an integer, not a layout"
run 'R[2 : 1 @ laneid]'
check "replicas alone: exit 1" fails 1 "R[...] alone has no logical shape"
run "$SEED3" --apply 32,0
check "--apply outside the shape: exit 1" fails 1 "outside the shape"
run "$SEED3" --apply 1,2,3
check "--apply of another rank: exit 1" fails 1 "gives 3 coordinates; the shape has 2"
run 'S[(1 << 40, 1 << 40)]'
check "a size that overflows: exit 1" fails 1 "overflows"
run 'S[(4096, 4096)]'
check "too many elements for a grid: exit 1" fails 1 "too many to show"
run 'S[(2, 2) : (1 << 62, 1 << 62)]' --apply 1,1
check "coordinates that overflow: exit 1" fails 1 "overflow 64 bits"
echo old >"$TMP/keep"
run 'S[(32, 8) : (1 @ laneid 1)]' -o "$TMP/keep"
check "a failed run leaves -o alone" grep -qx old "$TMP/keep"

# Bad usage: exit 2.
for bad in "--shape 4x" "--shape 0,4" "--shape ,4" "--shape=" "--apply 1,a" "--apply -1,0" \
           "--width 10" "--width 80x" "--color purple" "--dtype float13" "--kernel k1" "--frobnicate"; do
  run "$SEED3" $bad
  check "usage error: $bad" status 2 "^txc-layout: error: " "$TMP/err"
done
run --help
check "--help: exit 0, usage" status 0 "^usage: txc-layout" "$TMP/out"
done_testing
