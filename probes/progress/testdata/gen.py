#!/usr/bin/env python3
"""Writes the recorded outputs the parser's tests read (see README.md).

Each file is what a training script using the library prints to a pipe, byte
for byte as the library's documented format and its source make it: tqdm's
bar and its "\r" redraws, Lightning's bars (tqdm and Rich), Keras' Progbar
(2.x with backspaces, 3.x with box drawing and ANSI bold), Hugging Face
Trainer's bar and log dicts, and generic log lines (nanoGPT, torchtitan-like).
Run from this directory: python3 gen.py
"""

def tqdm_bar(desc, n, total, elapsed, remaining, rate, unit="it", width=10, postfix=""):
    frac = n / total
    full = int(frac * width)
    part = " ▏▎▍▌▋▊▉"[int((frac * width - full) * 8)] if full < width else ""
    bar = "█" * full + part
    bar = bar + " " * (width - len(bar))
    pre = f"{desc}: " if desc else ""
    r = "?" + unit + "/s" if rate is None else (f"{rate:.2f}{unit}/s" if rate >= 1 else f"{1/rate:.2f}s/{unit}")
    return f"{pre}{frac*100:3.0f}%|{bar}| {n}/{total} [{clock(elapsed)}<{clock(remaining) if rate else '?'}, {r}{postfix}]"

def clock(s):
    s = int(s)
    return f"{s//60:02d}:{s%60:02d}"

def tqdm_run(desc, total, rate, every, start=0.0, postfix=""):
    """Redraws of one bar: a line per `every` items, "\r" before each."""
    out, t = [], start
    out.append("\r" + tqdm_bar(desc, 0, total, 0, 0, None))
    for n in range(every, total + 1, every):
        t = n / rate
        out.append("\r" + tqdm_bar(desc, n, total, t, (total - n) / rate, rate, postfix=postfix))
    return "".join(out) + "\n"

with open("tqdm.txt", "w", newline="") as f:
    # tqdm(range(1000)) at 50 it/s, then a slow bar under 1 it/s (s/it).
    f.write(tqdm_run("", 1000, 50.0, 25))
    f.write(tqdm_run("slow", 5, 0.4, 1))

with open("tqdm_nested.txt", "w", newline="") as f:
    # An outer epoch bar (position 0) and an inner batch bar (position 1):
    # tqdm moves between them with "\n" and ESC[A.
    for e in range(3):
        f.write("\r" + tqdm_bar("epochs", e, 3, e * 20, (3 - e) * 20, 0.05 if e else None))
        for n in range(0, 1001, 50):
            f.write("\n\r" + tqdm_bar(f"epoch {e}", n, 1000, n / 50, (1000 - n) / 50, 50.0 if n else None) + "\x1b[A")

with open("lightning.txt", "w", newline="") as f:
    # TQDMProgressBar: the epoch bar, then the validation bar below it.
    f.write("GPU available: True (cuda), used: True\n")
    for e in range(2):
        for n in range(0, 401, 20):
            f.write("\r" + tqdm_bar(f"Epoch {e}", n, 400, n / 40, (400 - n) / 40, 40.0 if n else None,
                                    postfix=f", v_num=0, train_loss={0.5/(n+1):.3f}"))
        for n in range(0, 51, 10):
            f.write("\n\r" + tqdm_bar("Validation DataLoader 0", n, 50, n / 100, 0, 100.0 if n else None) + "\x1b[A")
        f.write("\n")
    f.write("`Trainer.fit` stopped: `max_epochs=2` reached.\n")

with open("lightning_rich.txt", "w", newline="") as f:
    # RichProgressBar, as Rich writes it to a terminal: colours and "\r".
    for n in range(0, 1001, 100):
        done = "━" * (n * 30 // 1000)
        rest = "━" * (30 - len(done))
        rate = "0.00it/s" if n == 0 else "50.00it/s"
        f.write(f"\r\x1b[37mEpoch 0/9 \x1b[0m \x1b[38;2;98;6;224m{done}\x1b[0m\x1b[38;5;237m{rest}\x1b[0m "
                f"\x1b[37m{n}/1000\x1b[0m \x1b[38;5;245m0:00:{n//50:02d} • 0:00:{(1000-n)//50:02d}\x1b[0m "
                f"\x1b[38;5;249m{rate}\x1b[0m \x1b[37mv_num: 0 loss: 0.123\x1b[0m")
    f.write("\n")

with open("keras2.txt", "w", newline="") as f:
    # tf.keras 2.x Progbar on a terminal: backspaces over the last line, "\r".
    f.write("Epoch 1/2\n")
    prev = 0
    for n in range(1, 501, 25):
        filled = 30 * n // 500
        bar = "=" * (filled - 1) + (">" if n < 500 else "=") + "." * (30 - filled)
        line = f"{n:3d}/500 [{bar}] - ETA: {(500-n)//40}s - loss: {1/n:.4f}"
        f.write("\b" * prev + "\r" + line)
        prev = len(line)
    f.write("\b" * prev + "\r" + "500/500 [==============================] - 12s 24ms/step - loss: 0.0020\n")
    f.write("Epoch 2/2\n")
    f.write(" 25/500 [=>............................] - ETA: 11s - loss: 0.0011")
    f.write("\b" * 64 + "\r" + "500/500 [==============================] - 11s 22ms/step - loss: 0.0010\n")

with open("keras3.txt", "w", newline="") as f:
    # Keras 3 Progbar: box drawing, ANSI bold and colour, "\r".
    f.write("Epoch 1/2\n")
    for n in range(1, 501, 50):
        done = "━" * (20 * n // 500)
        f.write(f"\r\x1b[1m{n:3d}/500\x1b[0m \x1b[32m{done}\x1b[0m\x1b[37m{'━'*(20-len(done))}\x1b[0m "
                f"\x1b[1m{(500-n)//45}s\x1b[0m 22ms/step - accuracy: 0.9 - loss: 0.3")
    f.write(f"\r\x1b[1m500/500\x1b[0m \x1b[32m{'━'*20}\x1b[0m\x1b[37m\x1b[0m \x1b[1m11s\x1b[0m 22ms/step - accuracy: 0.9 - loss: 0.3\n")

with open("hf_trainer.txt", "w", newline="") as f:
    # Trainer with logging_steps=100: its tqdm bar (total steps), the log
    # dicts printed between redraws, the evaluation bar and the summary.
    f.write("***** Running training *****\n  Num examples = 8000\n  Num Epochs = 1\n  Total optimization steps = 500\n")
    for n in range(0, 501, 10):
        f.write("\r" + tqdm_bar("", n, 500, n / 5, (500 - n) / 5, 5.0 if n else None))
        if n and n % 100 == 0:
            f.write(f"\n{{'loss': {2/n:.4f}, 'grad_norm': 1.23, 'learning_rate': {5e-5*(1-n/500):.1e}, 'epoch': {n/500:.2f}}}\n")
    f.write("\n{'eval_loss': 0.41, 'eval_runtime': 2.1, 'eval_samples_per_second': 98.1, 'eval_steps_per_second': 12.3, 'epoch': 1.0}\n")
    f.write("{'train_runtime': 100.2, 'train_samples_per_second': 79.8, 'train_steps_per_second': 4.99, 'train_loss': 0.3, 'epoch': 1.0}\n")

with open("generic.txt", "w", newline="") as f:
    # nanoGPT's train.py lines, then a torchtitan-like line with tokens/s.
    for it in range(0, 101, 10):
        f.write(f"iter {it}: loss {4.2-it/100:.4f}, time {120.5:.2f}ms, mfu 30.12%\n")
        if it % 50 == 0:
            f.write(f"step {it}: train loss {4.2-it/100:.4f}, val loss {4.3-it/100:.4f}\n")
    for s in range(1, 6):
        f.write(f"\x1b[31mstep: {s*10}  loss: 7.1  memory: 30.5GiB(38.6%)  tps: 6,512  tokens/s: 6,512  mfu: 38.1%\x1b[39m\n")
