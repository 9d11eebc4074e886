#!/usr/bin/env python3
"""Writes the logs of this folder (see ../README.md): the same kind of
readings saved the unlucky ways Windows tools and hand-made loggers save
them. Deterministic: python3 make.py rewrites them byte for byte."""
import random

rng = random.Random(26)


def smi_rows(n=20):
    """Two GPUs of a workstation read every second by nvidia-smi -l 1."""
    rows = []
    for s in range(n):
        for gpu, (name, base_w, mem) in enumerate([("NVIDIA GeForce RTX 4090", 285.0, 17960),
                                                    ("NVIDIA GeForce RTX 3090", 240.0, 15120)]):
            busy = s % 10 < 8
            util = rng.randint(88, 99) if busy else rng.randint(0, 3)
            watts = base_w + rng.uniform(-12, 12) if busy else 31 + rng.uniform(-1, 1)
            ms = 11_000 + s * 1004 + gpu * 3 + rng.randint(0, 2)  # -l 1 drifts a few ms a pass
            rows.append((f"2026/03/14 21:05:{ms // 1000:02d}.{ms % 1000:03d}", gpu, name, util,
                         mem + rng.randint(-40, 40), watts, 62 + gpu * 4 + rng.randint(-1, 1)))
    return rows


def smi_csv(rows, sep=", ", units=True):
    head = sep.join(["timestamp", "index", "name", "utilization.gpu [%]", "memory.used [MiB]", "power.draw [W]", "temperature.gpu"])
    lines = [head]
    for t, i, name, u, m, w, c in rows:
        if units:
            lines.append(sep.join([t, str(i), name, f"{u} %", f"{m} MiB", f"{w:.2f} W", str(c)]))
        else:
            lines.append(sep.join([t, str(i), name, str(u), str(m), f"{w:.2f}", str(c)]))
    return "\r\n".join(lines) + "\r\n"


rows = smi_rows()
# PowerShell 5.1: nvidia-smi ... -l 1 > smi.csv writes UTF-16 LE with a BOM and CRLF.
open("smi-powershell-utf16le.csv", "wb").write(b"\xff\xfe" + smi_csv(rows).encode("utf-16-le"))
# Notepad's "Unicode big endian": UTF-16 BE with a BOM.
open("smi-notepad-utf16be.csv", "wb").write(b"\xfe\xff" + smi_csv(rows).encode("utf-16-be"))
# Excel's "CSV UTF-8 (Comma delimited)": a UTF-8 BOM, CRLF, no spaces after commas, no units.
open("smi-excel-utf8bom.csv", "wb").write(b"\xef\xbb\xbf" + smi_csv(rows, sep=",", units=False).encode())

# A hand-made logger (a Python loop over pynvml) with its own header names.
lines = ["timestamp,gpu_index,gpu_util%,vram_used_mb,power_W,temp_c"]
for s in range(30):
    for g in range(2):
        lines.append(f"2026-03-14T21:06:{s:02d}Z,{g},{rng.randint(90, 100)},{40960 + rng.randint(-64, 64)},"
                     f"{610 + rng.uniform(-25, 25):.1f},{67 + g + rng.randint(-1, 1)}")
open("hand-made-logger.csv", "w", newline="\n").write("\n".join(lines) + "\n")

# GPU-Z's sensor log: Windows-1252 (the degree sign is the byte 0xB0), CRLF,
# a trailing comma on every line, padded fields.
cols = ["        Date        ", "GPU Clock [MHz]", "Memory Clock [MHz]", "GPU Temperature [\xb0C]", "Fan Speed (%) [%]",
        "GPU Load [%]", "Memory Controller Load [%]", "Memory Used (Dedicated) [MB]", "Board Power Draw [W]",
        "CPU Temperature [\xb0C]"]
lines = [" , ".join(cols) + " ,"]
for s in range(25):
    busy = s < 20
    lines.append(" , ".join([f"2026-03-14 21:07:{s:02d} ", f"{2745.0 if busy else 210.0:9.1f}", f"{1312.8 if busy else 50.6:9.1f}",
                             f"{(64 if busy else 41) + rng.uniform(-0.6, 0.6):5.1f}", f"{(48 if busy else 0):3d}",
                             f"{(rng.randint(93, 99) if busy else 0):3d}", f"{(rng.randint(40, 55) if busy else 1):3d}",
                             f"{(17958 if busy else 1120) + rng.randint(-9, 9):6d}", f"{(301 if busy else 18) + rng.uniform(-9, 9):6.1f}",
                             f"{55 + rng.uniform(-2, 2):5.1f}"]) + " ,")
open("gpuz-sensor-log.txt", "wb").write(("\r\n".join(lines) + "\r\n").encode("cp1252"))
