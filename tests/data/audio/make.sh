#!/usr/bin/env bash
# Makes the small encoded test songs in this folder (run once; the results
# are committed). Needs python3, flac, lame and vorbis-tools (oggenc).
#   tone.flac  22050 Hz stereo 16-bit, 0.25 s: L = round(16384·sin(2π·440·i/22050)),
#              R = round(−8192·sin(…)) — lossless, checked sample by sample
#   tone.mp3   44100 Hz mono 64 kbit/s (LAME), 1.0 s: silence, a 440 Hz sine of
#              amplitude 16384 from 0.25 s to 0.75 s, silence
#   tone.ogg   the same as tone.mp3 in the left channel, silence in the right
#              (Vorbis q0, stereo)
set -euo pipefail
cd "$(dirname "$0")"
tmp="$(mktemp -d)"
python3 - "$tmp" <<'PY'
import math, struct, sys, wave
d = sys.argv[1]
def write(path, rate, chans, frames):
    w = wave.open(path, 'wb'); w.setnchannels(chans); w.setsampwidth(2); w.setframerate(rate)
    w.writeframes(b''.join(struct.pack('<' + 'h' * chans, *f) for f in frames)); w.close()
r = 22050
fr = []
for i in range(r // 4):
    s = math.sin(2 * math.pi * 440 * i / r)
    fr.append((int(round(16384 * s)), int(round(-8192 * s))))
write(d + '/flac.wav', r, 2, fr)
r = 44100
fr = []
for i in range(r):
    s = 16384 * math.sin(2 * math.pi * 440 * i / r) if 0.25 * r <= i < 0.75 * r else 0
    fr.append((int(round(s)),))
write(d + '/mono.wav', r, 1, fr)
write(d + '/stereo.wav', r, 2, [(f[0], 0) for f in fr])
PY
flac -s -8 -f -o tone.flac "$tmp/flac.wav"
lame --quiet -b 64 --resample 44.1 -m m "$tmp/mono.wav" tone.mp3
oggenc -Q -q 0 -o tone.ogg "$tmp/stereo.wav"
rm -r "$tmp"
