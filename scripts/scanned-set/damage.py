#!/usr/bin/python3
"""Damage a rendered page like an archive scan: skew, noise, JPEG artefacts, optionally a 90° turn.

    damage.py IN.png OUT.jpg SKEW_DEGREES DPI SEED [ROTATE90]

Deterministic for a given seed (Pillow's noise is seeded through `random`).
"""
import random
import sys

from PIL import Image, ImageChops

src, dst, skew, dpi, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
turn = len(sys.argv) > 6 and sys.argv[6] == "1"
random.seed(seed)
img = Image.open(src).convert("L")
img = img.rotate(skew, resample=Image.BICUBIC, fillcolor=255)
# Gaussian grain: noise around mid-grey, added with an offset so paper stays near white.
noise = Image.new("L", img.size)
noise.putdata([max(0, min(255, int(random.gauss(128, 28)))) for _ in range(img.size[0] * img.size[1])])
img = ImageChops.add(img, noise, scale=1.0, offset=-128)
if turn:
    img = img.transpose(Image.ROTATE_90)
img.save(dst, "JPEG", quality=35, dpi=(dpi, dpi))
