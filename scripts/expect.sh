# Shared by the scripts that check an example project built against an installed linfault:
# `fail`, `step` and `expect_exit`. Source it after setting `name` (the prefix of messages) and
# `work` (a scratch directory). Not a script of its own.

fail() {
  echo "$name: $*" >&2
  exit 1
}

step() { echo "-- $*" >&2; }

# Runs a command that must exit with the given status; its output goes to $work/out.txt.
expect_exit() {
  local want=$1
  shift
  set +e
  "$@" >"$work/out.txt" 2>&1
  local got=$?
  set -e
  if [[ $got -ne $want ]]; then
    cat "$work/out.txt" >&2
    fail "expected exit $want, got $got: $*"
  fi
}
