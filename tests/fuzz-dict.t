#!/bin/sh
# The AFL dictionary tests/fuzz/txc.dict is what tests/fuzz/mkdict.pl makes
# from the lexer and the tables today (after a change to either, remake it
# with UPDATE=1 prove tests/fuzz-dict.t), and it names what the fuzzer
# needs: plan keywords, builtins, dtypes, axes, variants.
. "$(dirname "$0")/lib.sh"
perl "$TOP/tests/fuzz/mkdict.pl" >"$TMP/txc.dict"
same_file "tests/fuzz/txc.dict is the output of tests/fuzz/mkdict.pl" "$TOP/tests/fuzz/txc.dict" "$TMP/txc.dict"
for w in '"threads="' '"src_base="' '"T.plan"' '"Tx."' '".cta."' '"T.ptx.cp_async"' '"TileLayout"' '"\"float16\""' \
         '"1 @ laneid"' '"dispatch=\"gmem_smem\""' '"\"16x64b\""' '"elif"' '"//="' '"scope=\"shared\""'; do
  check "the dictionary has $w" grep -qxF "$w" "$TMP/txc.dict"
done
# AFL++ reads every entry: a quoted string with no raw quote or backslash inside.
check "every entry is a quoted string AFL++ reads" sh -c "! grep -v '^#' '$TMP/txc.dict' | grep -v '^\$' | grep -vxE '\"([^\"\\\\]|\\\\[\"\\\\]|\\\\x[0-9a-f]{2})*\"'"
done_testing
