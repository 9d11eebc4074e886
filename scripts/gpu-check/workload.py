#!/usr/bin/env python3
"""The job scripts/gpu-check.sh runs under `gputop run`: known phases on one GPU.

Each phase starts with a line `gpu-check phase: NAME` (gputop run --phase-regex
'gpu-check phase: (\\S+)' makes it a marker). The plan, in seconds times
GPU_CHECK_SCALE (docs/real-gpu.md says why each length):

  busy 40          bf16 matmuls, 8192^3, back to back
  stall 20, busy 40  three times, then stall 20, busy 10: a 20 s stall every
                   60 s, four of them, with work on both sides of each
  input-bound 40   each step waits for a batch that CPU-heavy worker
                   processes prepare (the GPU works about a quarter of the time)
  idle 40          nothing runs, 20 GB held on the GPU

After the first busy phase it prints `gpu-check gemm: tflops=... sms=... cc=...
clock_hint=...`, what the GEMM achieved, for the GPM check.

`workload.py --plan` prints the plan (NAME SECONDS per line) without PyTorch:
the dry run's stand-in job (GPU_CHECK_DEMO=1) plays the same phases from it.
Only the standard library and torch are used.
"""
import multiprocessing as mp
import os
import sys
import time

SCALE = float(os.environ.get("GPU_CHECK_SCALE", "1"))
HELD_BYTES = 20 * 10**9  # "idle holding 20 GB"
N = 8192  # the GEMM's size: 2*N^3 FLOP a product


def plan():
    """The phases, in order: (name, seconds)."""
    p = [("busy", 40)]
    for k in range(4):
        p += [("stall", 20), ("busy", 10 if k == 3 else 40)]
    p += [("input-bound", 40), ("idle", 40)]
    return [(name, secs * SCALE) for name, secs in p]


def say(line):
    print(line, flush=True)


def worker(queue, stop, cpu_seconds, batch_bytes):
    """Prepares batches: cpu_seconds of pure-Python work each (decoding,
    augmenting), then the batch's bytes. One core, all the time."""
    x = os.getpid()
    while not stop.is_set():
        end = time.perf_counter() + cpu_seconds
        while time.perf_counter() < end:
            for _ in range(2000):
                x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        try:
            queue.put(os.urandom(batch_bytes), timeout=5)
        except Exception:  # queue full for 5 s: the phase is over
            pass


def main():
    if sys.argv[1:] == ["--plan"]:
        for name, secs in plan():
            print(f"{name} {secs:g}")
        return 0
    import torch  # only now: --plan runs without PyTorch

    if not torch.cuda.is_available():
        say("gpu-check error: torch sees no CUDA device")
        return 2
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    cc = f"{props.major}.{props.minor}"
    say(f"gpu-check device: {props.name} sms={props.multi_processor_count} cc={cc}")
    a = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    c = torch.empty(N, N, device=dev, dtype=torch.bfloat16)
    for _ in range(3):  # warm-up: cuBLAS picks its kernel
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()

    def busy(seconds):
        """Matmuls until seconds pass; returns the achieved TFLOP/s."""
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        end = time.monotonic() + seconds
        products = 0
        start.record()
        while time.monotonic() < end:
            for _ in range(20):
                torch.mm(a, b, out=c)
            products += 20
            torch.cuda.synchronize()  # keeps the queue short, so the phase ends on time
        stop.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(stop)
        return 2 * N**3 * products / (ms / 1000) / 1e12

    def stall(seconds):
        torch.cuda.synchronize()
        time.sleep(seconds)

    def input_bound(seconds):
        """Steps that each wait for a batch from CPU-heavy workers."""
        workers = max(2, min(8, (os.cpu_count() or 4) - 4))
        gap = 0.6  # a batch every 0.6 s from all the workers together
        ctx = mp.get_context("spawn")  # never fork a process that holds CUDA
        queue, stop_ev = ctx.Queue(maxsize=4), ctx.Event()
        procs = [ctx.Process(target=worker, args=(queue, stop_ev, gap * workers, 1 << 20), daemon=True)
                 for _ in range(workers)]
        for p in procs:
            p.start()
        end = time.monotonic() + seconds
        steps = 0
        x = torch.empty(1 << 20, dtype=torch.uint8, device=dev)
        while time.monotonic() < end:
            try:
                batch = queue.get(timeout=max(0.1, end - time.monotonic()))
            except Exception:
                continue
            x.copy_(torch.frombuffer(bytearray(batch), dtype=torch.uint8))
            t = time.monotonic()
            while time.monotonic() - t < 0.12:  # about 0.12 s of GPU work a step
                torch.mm(a, b, out=c)
                torch.cuda.synchronize()
            steps += 1
        # Ended at once, not joined: a worker is seconds into its batch, and
        # waiting for it would stretch the phase.
        stop_ev.set()
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(timeout=5)
        say(f"gpu-check input-bound: workers={workers} steps={steps}")

    def idle(seconds):
        held = torch.empty(HELD_BYTES, dtype=torch.uint8, device=dev)
        held.zero_()
        torch.cuda.synchronize()
        time.sleep(seconds)
        del held

    first_busy = True
    for name, secs in plan():
        say(f"gpu-check phase: {name}")
        if name == "busy":
            tflops = busy(secs)
            if first_busy:
                say(f"gpu-check gemm: tflops={tflops:.1f} n={N} sms={props.multi_processor_count} cc={cc}")
                first_busy = False
        elif name == "stall":
            stall(secs)
        elif name == "input-bound":
            input_bound(secs)
        elif name == "idle":
            idle(secs)
    say("gpu-check phase: end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
