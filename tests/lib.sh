# Shared helpers for the TAP test scripts (tests/*.t), sourced by each.
# Programs come from $TXC_BIN (default: bin/ at the top of the repository),
# so the same scripts test the normal and the sanitizer build.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${TXC_BIN:=$TOP/bin}"
case $TXC_BIN in /*) ;; *) TXC_BIN=$TOP/$TXC_BIN ;; esac
export TXC_BIN
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/txc-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0
_failed=0
plan() { echo "1..$1"; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
diag() { sed 's/^/# /' ; }
# check NAME CMD...: one test point, passing when CMD exits 0.
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# same_text NAME EXPECTED ACTUAL: passes when the files are equal, else shows
# a diff. For expectations written by hand: nothing rewrites EXPECTED.
same_text() {
  if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff -u "$2" "$3" | head -40 | diag; fi
}
# same_file NAME GOLDEN ACTUAL: same_text for a golden file made from a
# program's output; with UPDATE=1 it rewrites GOLDEN from ACTUAL instead.
same_file() {
  if [ "${UPDATE:-0}" = 1 ] && ! cmp -s "$2" "$3"; then
    cp "$3" "$2"; ok "$1 (updated $2)"; return
  fi
  same_text "$@"
}
done_testing() { echo "1..$_n"; [ "$_failed" = 0 ]; }
