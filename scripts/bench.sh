#!/usr/bin/env bash
# Measures gputop against the goals in docs/performance.md:
#   1. Go benchmarks (View, store, derive, hints, recordings, import);
#   2. on a real terminal (tmux), with ../shared/tools/tui-cost, gputop's CPU,
#      bytes per second and RSS beside btop and htop in the same run, at
#      80x24, 120x40 and 200x50: live (8-GPU demo, 1 s), paused, and replay;
#   3. replay of a 24-hour 8-GPU recording: first frame, full load, seek, RSS.
# Usage: scripts/bench.sh [SECONDS per measurement, default 60]
# SKIP_GO_BENCH=1 skips part 1. WARM (default 150 s) is how long gputop and
# btop run before they are measured: until their graphs are full, a screen
# of history costs less than it will for the rest of the day.
# Needs tmux, btop and htop (apt-get install tmux btop htop).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
warm=${WARM:-150}
tuicost=${TUI_COST:-../shared/tools/tui-cost}
work=$(mktemp -d)
trap 'rm -rf "$work"; tmux -L gputop-bench kill-server 2>/dev/null || true' EXIT

echo "== machine"
echo "$(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print $2/1024/1024 " GiB"}'), $(uname -r), $(go version)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "${SKIP_GO_BENCH:-}" ]; then
  echo "== go benchmarks"
  go test -run '^$' -bench 'View|Frame|Render|Seek|StoreAdd|Derive|Series|Engine|FirstHint|PhasesDay|Report' -benchmem ./ui ./ui/screen ./timeline/... | grep -E '^Benchmark'
  go test -run '^$' -bench . -benchtime 5x -benchmem ./recordings ./recordings/importer | grep -E '^Benchmark'
fi

go build -o "$work/gputop" .
bin=$work/gputop
"$bin" record -o "$work/hour.gtr" --demo --fast --duration 1h 2>/dev/null

echo "== terminal cost, ${secs}s each after ${warm}s (htop, replay: 3s) (cpu% of one core, bytes/s written, RSS)"
for geom in 80x24 120x40 200x50; do
  echo "-- $geom"
  "$tuicost" -w "$warm" -s "$secs" -g "$geom" -- "$bin" --demo --log "$work/log" | sed 's/^/live    /'
  "$tuicost" -w "$warm" -s "$secs" -g "$geom" -- btop | sed 's/^/        /'
  "$tuicost" -s "$secs" -g "$geom" -- htop | sed 's/^/        /'
  # A replay at 64x reaches the end of the hour in a minute; this measures
  # it playing, then resting at the end.
  "$tuicost" -s "$secs" -g "$geom" -- "$bin" replay "$work/hour.gtr" --speed 64 --log "$work/log" | sed 's/^/replay  /'
done

# Paused: tui-cost cannot press keys, so the same measurement by hand: the
# live demo, space pressed after the warm-up, then CPU ticks and bytes.
echo "-- paused live view, 120x40"
tmux -L gputop-bench -f /dev/null new-session -d -x 120 -y 40 "exec $bin --demo --log $work/log"
tmux -L gputop-bench set-option -g status off >/dev/null
sleep 3
tmux -L gputop-bench send-keys ' '
sleep 1
pid=$(tmux -L gputop-bench list-panes -F '#{pane_pid}' | head -1)
: > "$work/out"
tmux -L gputop-bench pipe-pane -o -t 0 "cat >> $work/out"
t0=$(awk '{print $14+$15}' /proc/$pid/stat); s0=$(date +%s.%N)
sleep "$secs"
t1=$(awk '{print $14+$15}' /proc/$pid/stat); s1=$(date +%s.%N)
awk -v t0="$t0" -v t1="$t1" -v s0="$s0" -v s1="$s1" -v hz="$(getconf CLK_TCK)" -v b="$(stat -c %s "$work/out")" \
  'BEGIN{w=s1-s0; printf "paused  cpu%%=%.2f B/s=%.1f\n", 100*(t1-t0)/hz/w, b/w}'
tmux -L gputop-bench kill-server; sleep 0.5

# screen_until shown|gone PATTERN INTERVAL polls the bench pane every
# INTERVAL seconds until PATTERN is on it (or gone from it), for at most a
# minute: a screen that never says so ends the script with one line rather
# than a wait for ever.
screen_until() {
  local deadline=$((SECONDS + 60)) pane now
  while :; do
    if ! pane=$(tmux -L gputop-bench capture-pane -p 2>/dev/null); then
      echo "bench.sh: the screen went away (gputop exited?) while waiting on '$2'" >&2
      exit 1
    fi
    now=gone
    if grep -q "$2" <<<"$pane"; then now=shown; fi
    if [ "$now" = "$1" ]; then return 0; fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "bench.sh: after 60 s, '$2' was $([ "$1" = shown ] && echo "not on" || echo "still on") the screen" >&2
      exit 1
    fi
    sleep "$3"
  done
}

# First frames are timed on a terminal of their own (scripts/firstframe),
# from exec until GPU7 is written: polling the tmux pane reads the polling
# too, each capture-pane taking longer than the frame on a slow VM.
go build -o "$work/firstframe" ./scripts/firstframe
echo "== first frame of the live view"
for i in 1 2 3; do
  "$work/firstframe" -size 120x40 -text GPU7 -- "$bin" --demo --log "$work/log"
done

echo "== replay of a 24-hour 8-GPU recording"
"$bin" record -o "$work/day.gtr" --demo --fast --duration 24h 2>&1 | tail -1
for i in 1 2 3; do
  "$work/firstframe" -size 120x40 -text GPU7 -- "$bin" replay "$work/day.gtr" --log "$work/log"
done
tmux -L gputop-bench -f /dev/null new-session -d -x 120 -y 40 "sleep 0.3; exec $bin replay $work/day.gtr --log $work/log"
sleep 0.25; t0=$(date +%s%N)
screen_until shown GPU7 0.005 # drawn, so that "loading" is on the screen until loaded
screen_until gone loading 0.05
t2=$(date +%s%N)
echo "fully loaded: $(( (t2 - t0) / 1000000 - 50 )) ms"
pid=$(tmux -L gputop-bench list-panes -F '#{pane_pid}' | head -1)
pid=$(pgrep -P "$pid" gputop || echo "$pid")
grep -E 'VmRSS|VmHWM' /proc/$pid/status
t3=$(date +%s%N)
tmux -L gputop-bench send-keys t '+12h' Enter
screen_until shown '12h of 1d' 0.002
t4=$(date +%s%N)
echo "seek to +12h on screen: $(( (t4 - t3) / 1000000 )) ms"
tmux -L gputop-bench kill-server; sleep 0.5
