#!/bin/sh
# demo-host.sh: a stand-in for ssh that plays a demo node for any host name,
# so `gputop --hosts` can be tried, and measured, without a cluster:
#
#   go build -o gputop . && ./gputop --hosts 'node[1-6]' --ssh-command scripts/demo-host.sh
#
# gputop runs it as `demo-host.sh HOST gputop stream --interval 1s`; it runs
# `gputop stream --interval 1s --demo=SCENARIO` here, the scenario chosen by
# the host's number modulo 6:
#
#   node1 input-bound   node2 imbalance   node3 cpu-fallback
#   node4 throttle      node5 checkpoint  node6 training (and node0, node12, ...)
#
# or GPUTOP_DEMO_HOST_SCENARIO for every host. The gputop it runs is
# GPUTOP_BIN, else the one built beside this folder (go build -o gputop .),
# else the one on PATH.
host=$1
shift 2 # the host and "gputop"
set -- training input-bound imbalance cpu-fallback throttle checkpoint -- "$@"
n=$(printf '%s' "$host" | tr -dc 0-9 | sed 's/^0*//')
i=$(( ${n:-0} % 6 ))
while [ "$i" -gt 0 ]; do shift; i=$((i - 1)); done
scenario=${GPUTOP_DEMO_HOST_SCENARIO:-$1}
while [ "$1" != "--" ]; do shift; done
shift
bin=${GPUTOP_BIN:-}
if [ -z "$bin" ]; then
  beside=$(dirname "$0")/../gputop
  if [ -x "$beside" ]; then
    bin=$beside
  elif command -v gputop >/dev/null 2>&1; then
    bin=gputop
  else
    echo "demo-host.sh: no gputop: build one beside scripts/ (go build -o gputop .) or set GPUTOP_BIN" >&2
    exit 127
  fi
fi
exec "$bin" "$@" --demo="$scenario"
