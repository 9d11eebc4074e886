"""How NVML's energy counter and power reading move on this GPU (issue 31's follow-up).

Runs bf16 GEMMs for a while and, beside them, reads nvmlDeviceGetTotalEnergyConsumption
in a tight loop: when the counter changes (its update period), what a 250 ms and a 1 s
window of it says, what nvmlDeviceGetPowerUsage says, and what each call costs.
Prints one JSON object."""
import json, threading, time
import pynvml as n
import torch

n.nvmlInit()
h = n.nvmlDeviceGetHandleByIndex(0)
stop = threading.Event()

def gemm():
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    while not stop.is_set():
        for _ in range(20):
            a @ b
        torch.cuda.synchronize()

def watch(seconds):
    """Reads the counter as fast as it answers; keeps every change."""
    changes, costs, last = [], [], None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter_ns()
        e = n.nvmlDeviceGetTotalEnergyConsumption(h)
        t1 = time.perf_counter_ns()
        costs.append((t1 - t0) / 1e3)
        if e != last:
            changes.append((t1 / 1e9, e))
            last = e
    return changes, costs

def windows(seconds, width):
    """Power from the counter over windows of width s, beside GetPowerUsage at the window's end."""
    out = []
    e0, t0 = n.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
    end = t0 + seconds
    while time.monotonic() < end:
        time.sleep(width)
        e1, t1 = n.nvmlDeviceGetTotalEnergyConsumption(h), time.monotonic()
        p = n.nvmlDeviceGetPowerUsage(h) / 1000
        out.append(((e1 - e0) / (t1 - t0) / 1000, p))
        e0, t0 = e1, t1
    return out

def summary(changes, costs):
    gaps = [round((b[0] - a[0]) * 1000, 2) for a, b in zip(changes, changes[1:])]
    steps = [b[1] - a[1] for a, b in zip(changes, changes[1:])]
    costs.sort()
    return {"changes": len(changes), "gap_ms": gaps[:40], "step_mJ": steps[:40],
            "reads": len(costs), "read_us_median": costs[len(costs) // 2],
            "read_us_p99": costs[int(len(costs) * 0.99)]}

res = {}
c, k = watch(2)
res["idle"] = summary(c, k)
th = threading.Thread(target=gemm); th.start()
time.sleep(6)
c, k = watch(3)
res["busy"] = summary(c, k)
res["busy_250ms"] = [[round(a, 1), round(b, 1)] for a, b in windows(4, 0.25)]
res["busy_1s"] = [[round(a, 1), round(b, 1)] for a, b in windows(5, 1.0)]
pu = []
for _ in range(400):
    t0 = time.perf_counter_ns(); n.nvmlDeviceGetPowerUsage(h); pu.append((time.perf_counter_ns() - t0) / 1e3)
pu.sort(); res["powerusage_us_median"] = pu[200]
# GetPowerUsage changes: how often it moves
seen, last, t_end = [], None, time.monotonic() + 2
while time.monotonic() < t_end:
    p = n.nvmlDeviceGetPowerUsage(h)
    if p != last:
        seen.append((round(time.monotonic() * 1000, 1), p)); last = p
res["powerusage_changes"] = seen[:30]
stop.set(); th.join()
print(json.dumps(res))
