# gputop_mark.py: put markers and the job's progress on gputop's timeline from
# a training loop, with nothing to install (docs/run.md). Copy the functions
# into your script; outside `gputop run` (or with no session listening) they do
# nothing, so the script runs the same everywhere.
import os, socket, sys

def gputop_mark(text):
    """Put a marker ("epoch 3", "eval") on gputop's timeline."""
    path = os.environ.get("GPUTOP_MARK_SOCKET")
    if not path:
        return
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(1)
            s.connect(path)
            s.sendall(text.encode() + b"\n")  # one line, at most 200 bytes
            answer = s.recv(256)  # b"ok\n", or b"error: <why>\n"
        if answer != b"ok\n":
            print("gputop mark:", answer.decode(errors="replace").strip(), file=sys.stderr)
    except OSError as e:  # never let a marker stop the training
        print("gputop mark:", e, file=sys.stderr)

def gputop_progress(done, unit="step"):
    """Say how much work is done so far: gputop reports the rate, J and cost per unit."""
    gputop_mark(f"progress {done} {unit}")

if __name__ == "__main__":  # an example loop: python3 gputop_mark.py [STEPS]
    import time
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    gputop_mark("epoch 0")
    for step in range(1, steps + 1):
        time.sleep(0.01)  # a training step
        if step % 10 == 0:  # every few steps: a connection each, well under a millisecond
            gputop_progress(step)
    gputop_mark("eval")
