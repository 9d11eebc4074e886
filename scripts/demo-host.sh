#!/bin/sh
# demo-host.sh: a stand-in for ssh that plays a demo node for any host name,
# so `gputop --hosts` can be tried, and measured, without a cluster:
#
#   gputop --hosts node[1-8] --ssh-command scripts/demo-host.sh
#
# gputop runs it as `demo-host.sh HOST gputop stream --interval 1s`; it runs
# `gputop stream --interval 1s --demo=SCENARIO` here, the scenario chosen by
# the host's number (node1 training, node2 input-bound, ...), or
# GPUTOP_DEMO_HOST_SCENARIO for every host. GPUTOP_BIN names the gputop to
# run (default: the one on PATH).
host=$1
shift 2 # the host and "gputop"
set -- training input-bound imbalance cpu-fallback throttle checkpoint -- "$@"
n=$(printf '%s' "$host" | tr -dc 0-9 | sed 's/^0*//')
i=$(( ${n:-0} % 6 ))
while [ "$i" -gt 0 ]; do shift; i=$((i - 1)); done
scenario=${GPUTOP_DEMO_HOST_SCENARIO:-$1}
while [ "$1" != "--" ]; do shift; done
shift
exec "${GPUTOP_BIN:-gputop}" "$@" --demo="$scenario"
