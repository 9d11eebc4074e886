#!/usr/bin/env bash
# scripts/gpu-check.sh OUTDIR: gputop's numbers and hints against a real
# NVIDIA GPU and its driver's own tool, unattended (docs/real-gpu.md).
#
#   GPUTOP_BIN        the gputop to check (default: gputop on PATH)
#   GPU_CHECK_DEMO=1  the dry run: every command against --demo (go-nvml's
#                     mock), no PyTorch, no nvidia-smi; comparisons with
#                     nvidia-smi are SKIP, timings recorded but not judged
#   GPU_CHECK_SCALE   multiplies every duration (default 1; 0.1 in the dry run)
#   PYTHON            the Python that has PyTorch (default python3)
#
# It writes to OUTDIR the raw material (snapshots, nvidia-smi's XML and CSV,
# nvml-cost.json, the recording workload.gtr, its reports and export) and
# results.md, a table of every check. A check that fails is recorded and
# the script goes on; it exits 1 if any check failed, 2 on a usage error.
#
# Time plan at scale 1 (the H100 machine: the whole must fit 8 minutes):
#   0:00  preflight; the idle snapshot beside nvidia-smi           ~10 s
#   0:10  nvml-bench: each call 1000 times, GetSamples paced
#         8 times at 250 ms and at 1 s                             ~15-25 s
#   0:35  the workload under gputop run: ~10 s of start-up, then
#         its plan (workload.py: 330 s)                            ~340 s
#         beside it, from its start: four 120 s runs of gputop
#         measuring its own cost (live in tmux and headless, at
#         1 s and 250 ms); the rivals, 120 s each at 1 s at the
#         same time, beside one more gputop live at 1 s measured as
#         they are (watch -n1 nvidia-smi, nvidia-smi dmon,
#         nvidia-smi --query-gpu -l 1, nvtop, nvitop); and 15 s
#         into the first busy phase the busy snapshot beside
#         nvidia-smi
#   6:15  reports (the whole run and three phases), export, checks  ~20 s
#   6:35  results.md. A hang guard ends the workload 120 s past its plan.
set -u

usage() { echo "usage: scripts/gpu-check.sh OUTDIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
OUT=$1
mkdir -p "$OUT" || { echo "gpu-check: cannot make $OUT" >&2; exit 2; }
OUT=$(cd "$OUT" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2
DEMO=${GPU_CHECK_DEMO:-}
[ "$DEMO" = 0 ] && DEMO=
if [ -n "$DEMO" ]; then SCALE=${GPU_CHECK_SCALE:-0.1}; else SCALE=${GPU_CHECK_SCALE:-1}; fi
PY=${PYTHON:-python3}
BIN=${GPUTOP_BIN:-$(command -v gputop || true)}
SMI_FIELDS=index,uuid,utilization.gpu,memory.total,memory.reserved,memory.used,power.draw,enforced.power.limit,clocks.sm,clocks.mem,temperature.gpu,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,ecc.mode.current,mig.mode.current
export GPU_CHECK_OUT=$OUT GPU_CHECK_SCALE=$SCALE GPU_CHECK_DEMO=$DEMO GPU_CHECK_SMI_FIELDS=$SMI_FIELDS
DEMOFLAG=()
SMI_SKIP=
if [ -n "$DEMO" ]; then
	DEMOFLAG=(--demo=training)
	SMI_SKIP="dry run: the demo's mock has no nvidia-smi to compare with"
fi
: >"$OUT/checks.tsv"
: >"$OUT/log.txt"

log() { printf '%s %s\n' "$(date +%T)" "$*" | tee -a "$OUT/log.txt" >&2; }
# check runs one judgement of checks.py; it records its own FAIL, so its
# exit status only goes to the log.
check() { "$PY" "$HERE/gpu-check/checks.py" "$@" || log "check $1 $2: recorded a failure"; }
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$OUT/checks.tsv"; }
# secs N: N seconds times the scale, rounded, at least 1.
secs() { awk -v n="$1" -v s="$SCALE" 'BEGIN { v = int(n * s + 0.5); print (v < 1 ? 1 : v) }'; }
finish() {
	"$PY" "$HERE/gpu-check/checks.py" results "${1:-$(hostname)}" nvml-cost.json
	local code=$?
	log "done: $OUT/results.md ($(grep -c $'\tFAIL\t' "$OUT/checks.tsv") failed)"
	exit "$code"
}

# ---- preflight ------------------------------------------------------------
log "gpu-check in $OUT (scale $SCALE${DEMO:+, dry run against --demo})"
if [ -z "$BIN" ] || ! "$BIN" version >"$OUT/version.txt" 2>&1; then
	record gputop-binary FAIL "${BIN:-none}" "GPUTOP_BIN or gputop on PATH runs" "nothing else can run"
	finish "no gputop"
fi
record gputop-binary PASS "$(cat "$OUT/version.txt")" "runs"
if ! command -v "$PY" >/dev/null; then
	echo "gpu-check: $PY not found (set PYTHON)" >&2
	exit 2
fi
if [ -z "$DEMO" ]; then
	{ nvidia-smi -L; nvidia-smi; "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; uname -a; nproc; } >"$OUT/machine.txt" 2>&1 ||
		log "preflight: something in machine.txt failed (see it)"
fi
TITLE="$(head -1 "$OUT/machine.txt" 2>/dev/null || echo "dry run against --demo"), $(date -u +%F)"
[ -n "$DEMO" ] && TITLE="dry run against --demo, $(date -u +%F)"

# snap LABEL: gputop's snapshot beside nvidia-smi's XML and CSV, compared.
snap() {
	local label=$1
	if ! "$BIN" snapshot --json "${DEMOFLAG[@]}" >"$OUT/snapshot-$label.json" 2>"$OUT/snapshot-$label.err"; then
		record "snapshot-$label" FAIL "$(head -c 300 "$OUT/snapshot-$label.err")" "gputop snapshot --json answers"
		return
	fi
	if [ -z "$DEMO" ]; then
		nvidia-smi -q -x >"$OUT/smi-$label.xml" 2>&1 || log "nvidia-smi -q -x failed"
		if ! nvidia-smi --query-gpu="$SMI_FIELDS" --format=csv,noheader,nounits >"$OUT/smi-$label.csv" 2>&1; then
			# An older driver refuses the whole query for one unknown field:
			# the XML then stands in for the CSV.
			log "nvidia-smi --query-gpu refused: $(head -c 200 "$OUT/smi-$label.csv")"
		fi
	fi
	check smi "$label" "snapshot-$label.json" "smi-$label.xml" "smi-$label.csv" "$SMI_SKIP"
}

# ---- 1. idle snapshot -----------------------------------------------------
log "1. the idle GPU: snapshot beside nvidia-smi"
snap idle

# ---- 2. the cost of each NVML call ----------------------------------------
log "2. nvml-bench"
paced=8
[ -n "$DEMO" ] && paced=2
if "$BIN" nvml-bench --json --calls 1000 --paced-calls "$paced" "${DEMOFLAG[@]}" >"$OUT/nvml-cost.json" 2>"$OUT/nvml-cost.err"; then
	check cost nvml-cost.json 20000
else
	record nvml-bench FAIL "$(head -c 300 "$OUT/nvml-cost.err")" "gputop nvml-bench answers"
fi
# The bill: the probe's schedule at 1 s and 250 ms priced with this run's
# own costs; in the dry run, the mock's costing nothing, with the H100's.
costs=$OUT/nvml-cost.json
[ -n "$DEMO" ] && costs=$HERE/../docs/real-gpu/h100-2026-11-27.json
for iv in 1s:800 250ms:1500; do
	if "$BIN" nvml-bench --json --calls 1 --paced-calls 0 --interval "${iv%%:*}" --costs "$costs" "${DEMOFLAG[@]}" \
		>"$OUT/nvml-bill-${iv%%:*}.json" 2>>"$OUT/nvml-cost.err"; then
		check bill "nvml-bill-${iv%%:*}" "nvml-bill-${iv%%:*}.json" "${iv#*:}"
	else
		record "nvml-bill-${iv%%:*}" FAIL "$(tail -c 300 "$OUT/nvml-cost.err")" "gputop nvml-bench --costs answers"
	fi
done

# ---- 3. gputop's own cost, beside the workload ----------------------------
SELF_S=$(secs 120)
TMUX_SOCK="gpucheck-$$"
# self_cost ID live|record INTERVAL: runs gputop for SELF_S seconds and
# writes "CPU% RSS-KiB SECONDS" (or "skip REASON") to OUT/ID.self.
self_cost() {
	local id=$1 mode=$2 iv=$3 pidf="$OUT/$1.pid" pid="" i
	rm -f "$pidf"
	case $mode in
	live)
		local cmd="echo \$\$ >'$pidf'; exec '$BIN' --interval $iv ${DEMOFLAG[*]}"
		if command -v tmux >/dev/null; then
			tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s "$id" -x 120 -y 40 "$cmd" ||
				{ echo "skip tmux would not start" >"$OUT/$id.self"; return; }
		elif command -v script >/dev/null; then
			# No tmux here: script(1) gives it a terminal; sleep keeps stdin open.
			(sleep $((SELF_S + 30)) | script -qfec "stty cols 120 rows 40; $cmd" /dev/null) >/dev/null 2>&1 &
		else
			echo "skip neither tmux nor script(1) is installed" >"$OUT/$id.self"
			return
		fi
		;;
	record)
		(
			echo "$BASHPID" >"$pidf"
			exec "$BIN" record -o "$OUT/$id.gtr" --interval "$iv" --duration "$((SELF_S + 30))s" "${DEMOFLAG[@]}"
		) >/dev/null 2>"$OUT/$id.err" &
		;;
	esac
	for i in $(seq 50); do
		[ -s "$pidf" ] && break
		sleep 0.2
	done
	pid=$(cat "$pidf" 2>/dev/null)
	if [ -z "$pid" ] || ! [ -r "/proc/$pid/stat" ]; then
		echo "skip gputop did not start (see $id.err)" >"$OUT/$id.self"
		return
	fi
	sleep 5 # start-up (NVML's init) is not the steady cost
	local tck t0 c0 t1 c1 rss
	tck=$(getconf CLK_TCK)
	t0=$(date +%s.%N)
	c0=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
	sleep "$SELF_S"
	t1=$(date +%s.%N)
	c1=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }')
	rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	if [ -z "$c1" ] || [ -z "$rss" ]; then
		echo "skip gputop exited before the end of the measurement (see $id.err)" >"$OUT/$id.self"
	else
		awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tck="$tck" -v rss="$rss" \
			'BEGIN { printf "%.2f %d %.0f\n", 100 * (c1 - c0) / tck / (t1 - t0), rss, t1 - t0 }' >"$OUT/$id.self"
	fi
	if [ "$mode" = live ] && command -v tmux >/dev/null; then
		tmux -L "$TMUX_SOCK" send-keys -t "$id" q 2>/dev/null
	else
		kill -INT "$pid" 2>/dev/null # record closes its file cleanly on SIGINT
	fi
}

# The rivals: what users leave running on a GPU node, each measured as
# gputop is beside them. CPU is the process's and its children's (watch
# runs nvidia-smi anew each second; /proc's cutime and cstime hold the
# children it waited for, and the live ones add their own), RSS the peak of
# the whole tree's, sampled each second.
tree_pids() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1" 2>/dev/null); do tree_pids "$c"; done
}
tree_ticks() {
	local p sum=0 v
	for p in $(tree_pids "$1"); do
		if [ "$p" = "$1" ]; then
			v=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }')
		else
			v=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')
		fi
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}
tree_rss() {
	local p sum=0 v
	for p in $(tree_pids "$1"); do
		v=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}
# rival ID term|pipe COMMAND...: COMMAND for SELF_S seconds, in a 120x40
# terminal (tmux) or writing to OUT/ID.out; "CPU% PEAK-RSS-KiB SECONDS" or
# "skip REASON" to OUT/ID.rival.
rival() {
	local id=$1 how=$2 pidf="$OUT/$1.pid" pid="" i t0 c0 t1 c1 peak=0 r
	shift 2
	rm -f "$pidf"
	if [ "$how" = term ]; then
		command -v tmux >/dev/null || { echo "skip tmux is not installed: no terminal to run it in" >"$OUT/$id.rival"; return; }
		tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s "$id" -x 120 -y 40 \
			"echo \$\$ >'$pidf'; exec $(printf '%q ' "$@") 2>'$OUT/$id.err'" ||
			{ echo "skip tmux would not start" >"$OUT/$id.rival"; return; }
	else
		(
			echo "$BASHPID" >"$pidf"
			exec "$@"
		) </dev/null >"$OUT/$id.out" 2>"$OUT/$id.err" &
	fi
	for i in $(seq 50); do
		[ -s "$pidf" ] && break
		sleep 0.2
	done
	pid=$(cat "$pidf" 2>/dev/null)
	sleep 5
	if [ -z "$pid" ] || ! [ -r "/proc/$pid/stat" ]; then
		echo "skip it exited at start: $(head -c 200 "$OUT/$id.err" 2>/dev/null | tr '\n' ' ')" >"$OUT/$id.rival"
		return
	fi
	t0=$(date +%s.%N)
	c0=$(tree_ticks "$pid")
	for i in $(seq "$SELF_S"); do
		sleep 1
		r=$(tree_rss "$pid")
		[ "${r:-0}" -gt "$peak" ] && peak=$r
	done
	t1=$(date +%s.%N)
	c1=$(tree_ticks "$pid")
	if ! [ -r "/proc/$pid/stat" ]; then
		echo "skip it exited before the end of the measurement: $(head -c 200 "$OUT/$id.err" 2>/dev/null | tr '\n' ' ')" >"$OUT/$id.rival"
	else
		awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tck="$(getconf CLK_TCK)" -v rss="$peak" \
			'BEGIN { printf "%.2f %d %.0f\n", 100 * (c1 - c0) / tck / (t1 - t0), rss, t1 - t0 }' >"$OUT/$id.rival"
	fi
	if [ "$how" = term ]; then
		tmux -L "$TMUX_SOCK" send-keys -t "$id" q 2>/dev/null
		sleep 1
		tmux -L "$TMUX_SOCK" kill-session -t "$id" 2>/dev/null
	fi
	kill -INT "$pid" 2>/dev/null
}
# rivals: each rival that can run here, beside gputop's live view; the
# others' rows say why not.
rivals() {
	local smi_why="" id
	if [ -n "$DEMO" ]; then
		smi_why="dry run: the demo's mock has no nvidia-smi"
	elif ! command -v nvidia-smi >/dev/null; then
		smi_why="nvidia-smi is not installed here"
	fi
	rival rival-gputop term "$BIN" --interval 1s "${DEMOFLAG[@]}" &
	for id in watch-nvidia-smi nvidia-smi-dmon nvidia-smi-query; do
		[ -n "$smi_why" ] && echo "skip $smi_why" >"$OUT/rival-$id.rival"
	done
	if [ -z "$smi_why" ]; then
		if command -v watch >/dev/null; then
			rival rival-watch-nvidia-smi term watch -n1 nvidia-smi &
		else
			echo "skip watch (procps) is not installed here" >"$OUT/rival-watch-nvidia-smi.rival"
		fi
		rival rival-nvidia-smi-dmon pipe nvidia-smi dmon -d 1 &
		rival rival-nvidia-smi-query pipe nvidia-smi --query-gpu="$SMI_FIELDS" --format=csv -l 1 &
	fi
	if [ -n "$DEMO" ]; then
		echo "skip dry run: nvtop reads the real driver, which the demo's mock is not" >"$OUT/rival-nvtop.rival"
	elif command -v nvtop >/dev/null; then
		rival rival-nvtop term nvtop -d 10 &
	else
		echo "skip nvtop is not installed here: Debian has it in contrib, not main, and the GPU machine reaches no registry" >"$OUT/rival-nvtop.rival"
	fi
	if [ -n "$DEMO" ]; then
		echo "skip dry run: nvitop reads the real driver, which the demo's mock is not" >"$OUT/rival-nvitop.rival"
	elif command -v nvitop >/dev/null; then
		rival rival-nvitop term nvitop --interval 1 &
	else
		echo "skip nvitop is not installed here: it comes from PyPI, which is not reached from here" >"$OUT/rival-nvitop.rival"
	fi
	wait
}

log "3. the workload under gputop run, and gputop's own cost and the rivals' beside it (${SELF_S}s each)"
self_ids=(live-1s live-250ms record-1s record-250ms)
self_cost live-1s live 1s &
self_cost live-250ms live 250ms &
self_cost record-1s record 1s &
self_cost record-250ms record 250ms &
rivals &

"$PY" "$HERE/gpu-check/workload.py" --plan >"$OUT/plan.txt" || record workload-plan FAIL "" "workload.py --plan answers"
plan_s=$(awk '{ s += $2 } END { printf "%d", s }' "$OUT/plan.txt")
if [ -n "$DEMO" ]; then
	# The stand-in job: the same phase lines at the same times, no GPU work;
	# the demo scenario supplies the GPU's readings.
	job=(bash -c 'while read -r name s; do echo "gpu-check phase: $name"; sleep "$s"; done <"$1"; echo "gpu-check phase: end"' job "$OUT/plan.txt")
else
	job=("$PY" "$HERE/gpu-check/workload.py")
fi
"$BIN" run -o "$OUT/workload.gtr" --force --phase-regex 'gpu-check phase: (\S+)' "${DEMOFLAG[@]}" -- "${job[@]}" \
	</dev/null >"$OUT/workload.log" 2>"$OUT/run-report.txt" &
run_pid=$!
# The hang guard: a workload far past its plan is ended (gputop run passes
# SIGTERM on to it and still writes the recording and its report).
# It looks every second, so it ends with the workload and leaves nothing
# behind holding the script's output open.
(
	for ((i = 0; i < plan_s + 120; i++)); do
		sleep 1
		kill -0 "$run_pid" 2>/dev/null || exit 0
	done
	kill -TERM "$run_pid" 2>/dev/null && echo "hang guard: ended the workload" >>"$OUT/log.txt"
) >/dev/null 2>&1 &

# 15 s into the first busy phase: the busy snapshot.
for _ in $(seq $((plan_s + 120))); do
	grep -q 'gpu-check phase: busy' "$OUT/workload.log" 2>/dev/null && break
	kill -0 "$run_pid" 2>/dev/null || break
	sleep 1
done
if grep -q 'gpu-check phase: busy' "$OUT/workload.log" 2>/dev/null; then
	sleep "$(secs 15)"
	log "   the busy GPU: snapshot beside nvidia-smi"
	snap busy
else
	record snapshot-busy FAIL "the workload never reached its busy phase (see workload.log, run-report.txt)" "a busy phase"
fi

wait "$run_pid"
run_code=$?
record workload-exit "$([ "$run_code" = 0 ] && echo PASS || echo FAIL)" "gputop run exited $run_code" "0, the job's own exit" \
	"gputop run exits with its job's code"
wait # the self-cost runs
tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
for id in "${self_ids[@]}"; do
	a=skip b="no measurement" c=""
	[ -r "$OUT/$id.self" ] && read -r a b c <"$OUT/$id.self"
	iv=${id#*-}
	max_cpu=1
	[ "$iv" = 250ms ] && max_cpu=4
	if [ "$a" = skip ]; then
		check self "self-$id" 0 0 0 "$max_cpu" 64 "$b $c"
	else
		check self "self-$id" "$a" "$b" "$c" "$max_cpu" 64
	fi
done
g=$(cat "$OUT/rival-gputop.rival" 2>/dev/null || echo "skip no measurement")
for r in gputop watch-nvidia-smi nvidia-smi-dmon nvidia-smi-query nvtop nvitop; do
	check rival "rival-$r" "$(cat "$OUT/rival-$r.rival" 2>/dev/null || echo "skip no measurement")" "$g"
done

# ---- 4. the report of the workload ----------------------------------------
log "4. reports"
"$BIN" report "$OUT/workload.gtr" >"$OUT/report.txt" 2>"$OUT/report.err" || record report-text FAIL "$(head -c 300 "$OUT/report.err")" "gputop report answers"
"$BIN" report "$OUT/workload.gtr" --format json >"$OUT/report.json" 2>>"$OUT/report.err" || record report-json FAIL "$(head -c 300 "$OUT/report.err")" "gputop report --format json answers"
"$BIN" export "$OUT/workload.gtr" --format csv -o "$OUT/workload.csv" --force 2>>"$OUT/report.err" || record export FAIL "$(head -c 300 "$OUT/report.err")" "gputop export answers"
# stretch NAME LABEL NTH: the report of one phase, as a session that began
# with it would judge it (3 s trimmed at its start, 1 s at its end, where
# the phase before drains and a sample straddles the marker).
stretch() {
	local range
	range=$("$PY" "$HERE/gpu-check/checks.py" span report.json "$2" "$3" 3 1 2>/dev/null)
	if [ -z "$range" ]; then
		echo '{"hints": [], "phases": []}' >"$OUT/$1.json"
		return
	fi
	# shellcheck disable=SC2086 # range is two flags and their values
	"$BIN" report "$OUT/workload.gtr" $range --format json >"$OUT/$1.json" 2>>"$OUT/report.err" ||
		echo '{"hints": [], "phases": []}' >"$OUT/$1.json"
}
stretch stretch-busy busy 0
stretch stretch-input input-bound 0
stretch stretch-idle idle 0
check phases report.json plan.txt
check quiet no-warning-busy report.json stretch-busy.json busy

gemm=$(grep -m1 '^gpu-check gemm:' "$OUT/workload.log" 2>/dev/null)
if [ -n "$DEMO" ]; then
	check gpm gpm-vs-gemm workload.csv report.json busy "" "dry run: the demo runs no GEMM; its scripted GPM readings are shown"
	# The hints' checks read fast demo recordings of the scenarios that
	# play each situation: the same judgement, on a timeline that holds it.
	for pair in input-bound:input-bound cpu-fallback:idle-memory-held checkpoint:periodic-stall; do
		scen=${pair%%:*} hint=${pair#*:}
		if "$BIN" record --demo="$scen" --fast --duration 6m -o "$OUT/demo-$scen.gtr" --force 2>>"$OUT/report.err" &&
			"$BIN" report "$OUT/demo-$scen.gtr" --format json >"$OUT/demo-$scen.json" 2>>"$OUT/report.err"; then
			check hint "hint-$hint" "$hint" "demo-$scen.json" ""
		else
			record "hint-$hint" FAIL "$(tail -c 300 "$OUT/report.err")" "the $scen demo recorded and reported"
		fi
	done
else
	check gpm gpm-vs-gemm workload.csv report.json busy "$gemm"
	check hint hint-periodic-stall periodic-stall report.json ""
	check hint hint-input-bound input-bound report.json stretch-input.json
	check hint hint-idle-memory-held idle-memory-held report.json stretch-idle.json
fi

finish "$TITLE"
