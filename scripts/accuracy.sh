#!/bin/sh
# Writes docs/accuracy.md: every hint scored on the labelled corpus (the real
# logs in ../shared/telemetry beside the repository, the demo scenarios, and
# the synthetic runs made in memory). The same tree writes the same bytes.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d ../shared/telemetry ]; then
	echo "accuracy.sh: ../shared/telemetry is not beside the repository: the real logs are needed" >&2
	exit 1
fi
GPUTOP_ACCURACY_WRITE=1 go test -count=1 -run '^TestAccuracy$' ./timeline/analysis/accuracy
echo "wrote docs/accuracy.md"
