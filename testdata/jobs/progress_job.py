#!/usr/bin/env python3
"""A job for TestRunReportsTheJobsRate: a tqdm-style bar on stderr, redrawn
with "\r" ten times a second, at 50 it/s for 10 s and 25 it/s for 10 s
after. The count follows the clock (not the loop), so the rates hold
whatever the machine's load; the bar states tqdm's smoothed rate. It prints
the Unix time of the change on stdout, for the test to check the report's.
Arguments: seconds per half (default 10), the two rates."""
import sys, time

half = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
rate1 = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
rate2 = float(sys.argv[3]) if len(sys.argv) > 3 else 25.0
total = int(half * (rate1 + rate2))
start = time.monotonic()
change = time.time() + half
print(f"rate changes at {change:.3f}", flush=True)
ema, last_n, last_t = None, 0, start
while True:
    time.sleep(0.1)
    now = time.monotonic()
    t = now - start
    n = int(rate1 * t if t < half else rate1 * half + rate2 * min(t - half, half))
    inst = (n - last_n) / (now - last_t)
    ema = inst if ema is None else 0.3 * inst + 0.7 * ema
    last_n, last_t = n, now
    pct = 100 * n // total
    bar = "█" * (pct // 10) + " " * (10 - pct // 10)
    sys.stderr.write(f"\r{pct:3d}%|{bar}| {n}/{total} [{int(t)//60:02d}:{int(t)%60:02d}<00:00, {ema:.2f}it/s]")
    sys.stderr.flush()
    if t >= 2 * half:
        break
sys.stderr.write("\n")
