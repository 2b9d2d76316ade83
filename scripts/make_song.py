#!/usr/bin/env python3
"""Writes a short generated song (WAV, 44.1 kHz mono 16-bit) for screenshots:
a kick on every beat at 128 BPM, a hi-hat between beats and a bass line,
first beat at 0.25 s. Usage: make_song.py OUT.wav [SECONDS]"""
import math, struct, sys, wave
out = sys.argv[1]
secs = float(sys.argv[2]) if len(sys.argv) > 2 else 40.0
rate, bpm, phase = 44100, 128.0, 0.25
n = int(rate * secs)
buf = [0.0] * n
beat = 60.0 / bpm
def add(t0, dur, f):
    i0 = int(t0 * rate)
    for i in range(i0, min(n, i0 + int(dur * rate))):
        buf[i] += f((i - i0) / rate)
k = 0
while phase + k * beat < secs:
    t = phase + k * beat
    amp = 1.0 if k % 4 == 0 else 0.7
    add(t, 0.18, lambda x: amp * 0.8 * math.exp(-x * 25) * math.sin(2 * math.pi * (50 + 120 * math.exp(-x * 40)) * x))
    add(t + beat / 2, 0.04, lambda x: 0.15 * math.exp(-x * 90) * math.sin(2 * math.pi * 7000 * x + 3 * math.sin(2 * math.pi * 3100 * x)))
    note = [55.0, 55.0, 65.4, 49.0][(k // 4) % 4]
    add(t, beat * 0.9, lambda x: 0.25 * math.exp(-x * 3) * math.sin(2 * math.pi * note * x))
    k += 1
with wave.open(out, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
    w.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(s * 26000)))) for s in buf))
