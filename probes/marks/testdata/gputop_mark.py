import os, socket, sys

def gputop_mark(text):
    """Put a marker on gputop's timeline; does nothing outside `gputop run`."""
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
