#!/usr/bin/env bash
# scripts/gpu-check/power-check.sh OUTDIR: the follow-up of the first real
# run of gpu-check.sh (docs/real-gpu.md, 2026-11-27), about 80 s on an H100:
# gputop's power beside nvidia-smi's while a GEMM runs, at a snapshot's
# 250 ms and in recordings at 1 s and 250 ms; what each NVML call costs in
# CPU, not only in wall time; and gputop's own CPU recording at 1 s.
#   GPUTOP_BIN  the gputop to check; PYTHON  the Python with PyTorch
#   GPU_CHECK_DEMO=1  the dry run, against --demo=training: no GEMM, no
#                     nvidia-smi, every wait a tenth as long (about 15 s)
set -u
OUT=${1:?usage: power-check.sh OUTDIR}
mkdir -p "$OUT" || exit 2
BIN=${GPUTOP_BIN:-gputop}
PY=${PYTHON:-python3}
DEMO=${GPU_CHECK_DEMO:-}
[ "$DEMO" = 0 ] && DEMO=
DEMOFLAG=()
[ -n "$DEMO" ] && DEMOFLAG=(--demo=training)
# secs N: N seconds, a tenth of them in the dry run (at least 1).
secs() { if [ -n "$DEMO" ]; then echo $(((N = $1 / 10) > 0 ? N : 1)); else echo "$1"; fi; }
log() { printf '%s %s\n' "$(date +%T)" "$*" | tee -a "$OUT/log.txt" >&2; }
smi() {
	if [ -n "$DEMO" ]; then echo "dry run: no nvidia-smi"; return; fi
	nvidia-smi -i 0 --query-gpu=power.draw,power.draw.average,power.draw.instant --format=csv,noheader,nounits
}
cpu_of() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

log "GEMMs for $(secs 75) s"
if [ -n "$DEMO" ]; then
	sleep "$(secs 75)" &
else
	"$PY" - >"$OUT/gemm.log" 2>&1 <<'PY' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 75
while time.time() < end:
    for _ in range(20):
        a @ b
    torch.cuda.synchronize()
print("done")
PY
fi
gemm=$!
sleep "$(secs 8)"

# The recordings outlast the window their cost is measured over (40 s, 4 s
# in the dry run) and the snapshots inside it.
REC_S=60
[ -n "$DEMO" ] && REC_S=15
log "headless recordings at 1 s and 250 ms, $REC_S s each, beside"
"$BIN" record -o "$OUT/rec-1s.gtr" --interval 1s --duration "${REC_S}s" "${DEMOFLAG[@]}" 2>"$OUT/rec-1s.err" &
r1=$!
"$BIN" record -o "$OUT/rec-250ms.gtr" --interval 250ms --duration "${REC_S}s" "${DEMOFLAG[@]}" 2>"$OUT/rec-250ms.err" &
r2=$!
sleep 1
tck=$(getconf CLK_TCK)
a1=$(cpu_of $r1) a2=$(cpu_of $r2) t0=$(date +%s.%N)

log "snapshots beside nvidia-smi"
for i in 1 2 3; do
	s=$(smi)
	p=$("$BIN" snapshot --json "${DEMOFLAG[@]}" 2>>"$OUT/snapshot.err" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["gpus"][0]["power_w"])')
	echo "snapshot $i: gputop $p W; nvidia-smi draw, average, instant: $s" | tee -a "$OUT/power.txt"
	sleep 1
done

# The recorders' own CPU over a fixed window, the snapshots above inside it.
sleep "$(awk -v t0="$t0" -v now="$(date +%s.%N)" -v w="$(secs 40)" 'BEGIN { d = t0 + w - now; print (d > 0 ? d : 0) }')"
b1=$(cpu_of $r1) b2=$(cpu_of $r2) t1=$(date +%s.%N)
awk -v a="$a1" -v b="$b1" -v c="$a2" -v d="$b2" -v t0="$t0" -v t1="$t1" -v tck="$tck" 'BEGIN {
	printf "record 1s: %.2f%% of a core; record 250ms: %.2f%% of a core, over %.0f s\n",
		100 * (b - a) / tck / (t1 - t0), 100 * (d - c) / tck / (t1 - t0), t1 - t0 }' | tee "$OUT/self.txt"

log "nvml-bench with CPU time"
"$BIN" nvml-bench --calls 300 --paced-calls 4 "${DEMOFLAG[@]}" >"$OUT/nvml-bench.txt" 2>&1
"$BIN" nvml-bench --calls 300 --paced-calls 2 --json "${DEMOFLAG[@]}" >"$OUT/nvml-cost.json" 2>/dev/null
wait $r1 $r2 $gemm

log "reports and power columns"
for r in rec-1s rec-250ms; do
	"$BIN" report "$OUT/$r.gtr" >"$OUT/$r.report.txt" 2>&1
	"$BIN" export "$OUT/$r.gtr" --format csv -o "$OUT/$r.csv" 2>>"$OUT/$r.err"
	"$PY" - "$OUT/$r.csv" <<'PY' | tee -a "$OUT/power.txt"
import csv, sys, statistics as st
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["gpu"] == "0" and r["power_w"]]
p = [float(r["power_w"]) for r in rows]
busy = [x for x in p if x > 400]
print(f"{sys.argv[1].rsplit('/', 1)[-1]}: {len(p)} rows; busy rows {len(busy)}: mean {st.mean(busy):.1f} W, "
      f"min {min(busy):.1f}, max {max(busy):.1f}, stdev {st.pstdev(busy):.1f}" if busy else "no busy rows")
PY
	grep -i 'energy' "$OUT/$r.report.txt" | head -3 | tee -a "$OUT/power.txt"
done
# Every part answered: three snapshots, the recorders' cost, the bench, both recordings.
if [ "$(grep -c '^snapshot .*: gputop [0-9.]* W' "$OUT/power.txt")" = 3 ] && grep -q '^record 1s: [0-9.]*%' "$OUT/self.txt" &&
	grep -q 'CPU µs' "$OUT/nvml-bench.txt" && grep -q '^rec-1s.csv: [1-9]' "$OUT/power.txt" && grep -q '^rec-250ms.csv: [1-9]' "$OUT/power.txt"; then
	log "done"
else
	log "done, with parts missing (see $OUT)"
	exit 1
fi
