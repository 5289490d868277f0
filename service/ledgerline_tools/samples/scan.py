"""Scanned and photographed versions of a PDF, made deterministically from a seed.

Pages are rendered with pdfium (pypdfium2: a PyPI wheel, so no system package, and rendered in
process instead of one subprocess per page), then degraded the way a flatbed scan or a phone
photo is: slight rotation (and perspective for photos), blur, uneven lighting, sensor noise
and JPEG compression. The result is the JPEG of each page and an image-only PDF holding them,
without any text layer.
"""

from __future__ import annotations

import dataclasses
import io
import random

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

MIN_DPI, MAX_DPI = 150, 300
POINTS_PER_INCH = 72
WHITE = (255, 255, 255)
DESK = (92, 84, 76)         # what a phone photo shows around the page


@dataclasses.dataclass(frozen=True)
class Degradation:
    rotation: float          # degrees, counter-clockwise
    blur: float              # Gaussian radius in pixels at 200 dpi
    noise: float             # standard deviation of the added noise, in grey levels
    lighting: float          # darkening at the far side of the gradient, 0..1
    light_angle: float       # direction of the gradient, degrees
    quality: int             # JPEG quality
    grey: bool
    perspective: float       # corner displacement as a share of the width (photos)


@dataclasses.dataclass(frozen=True)
class Scan:
    images: tuple[bytes, ...]       # one JPEG per page
    pdf: bytes                      # image-only PDF of those JPEGs
    dpi: int
    degradations: tuple[Degradation, ...]


def draw_degradation(rng: random.Random, photo: bool) -> Degradation:
    if photo:
        return Degradation(rotation=rng.uniform(-4, 4), blur=rng.uniform(0.6, 1.5),
                           noise=rng.uniform(6, 14), lighting=rng.uniform(0.2, 0.4),
                           light_angle=rng.uniform(0, 360), quality=rng.randint(45, 75),
                           grey=False, perspective=rng.uniform(0.01, 0.04))
    return Degradation(rotation=rng.uniform(-1.5, 1.5), blur=rng.uniform(0.3, 1.0),
                       noise=rng.uniform(3, 10), lighting=rng.uniform(0.03, 0.15),
                       light_angle=rng.uniform(0, 360), quality=rng.randint(55, 85),
                       grey=rng.random() < 0.6, perspective=0.0)


def scan_pdf(pdf: bytes, seed: int, *, dpi: int = 200, photo: bool = False) -> Scan:
    """Render every page of ``pdf`` at ``dpi`` (150–300) and degrade it; same seed, same bytes."""
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(f"dpi must be between {MIN_DPI} and {MAX_DPI}, not {dpi}")
    document = pdfium.PdfDocument(pdf)
    images, degradations = [], []
    try:
        for index in range(len(document)):
            rng = random.Random(f"ledgerline-scan:{seed}:{int(photo)}:{index}")
            degradation = draw_degradation(rng, photo)
            page = document[index].render(scale=dpi / POINTS_PER_INCH).to_pil().convert("RGB")
            noise_seed = rng.getrandbits(64)
            images.append(degrade(page, degradation, dpi=dpi, noise_seed=noise_seed))
            degradations.append(degradation)
    finally:
        document.close()
    return Scan(images=tuple(images), pdf=image_pdf(images, dpi), dpi=dpi,
                degradations=tuple(degradations))


def degrade(image: Image.Image, d: Degradation, *, dpi: int, noise_seed: int) -> bytes:
    background = DESK if d.perspective else WHITE
    if d.perspective:
        image = _perspective(image, d.perspective, noise_seed, background)
    image = image.rotate(d.rotation, resample=Image.Resampling.BICUBIC, fillcolor=background)
    image = image.filter(ImageFilter.GaussianBlur(d.blur * dpi / 200))
    pixels = np.asarray(image, dtype=np.float32)
    pixels *= _lighting(pixels.shape[:2], d)[..., None]
    pixels += np.random.default_rng(noise_seed).normal(0.0, d.noise, pixels.shape[:2])[..., None]
    out = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")
    if d.grey:
        out = out.convert("L")
    buffer = io.BytesIO()
    out.save(buffer, "JPEG", quality=d.quality, dpi=(dpi, dpi))
    return buffer.getvalue()


def _lighting(shape: tuple[int, int], d: Degradation) -> np.ndarray:
    """1 on the bright side falling to 1 - lighting on the far side (a vignette for photos)."""
    h, w = shape
    ys = np.arange(h, dtype=np.float32)[:, None]
    xs = np.arange(w, dtype=np.float32)[None, :]
    angle = np.deg2rad(d.light_angle)
    along = (xs / w - 0.5) * np.cos(angle) + (ys / h - 0.5) * np.sin(angle) + 0.5
    field = 1.0 - d.lighting * np.clip(along, 0, 1)
    if d.perspective:
        r2 = ((xs / w - 0.5) ** 2 + (ys / h - 0.5) ** 2) * 2
        field *= 1.0 - 0.5 * d.lighting * r2
    return field


def _perspective(image: Image.Image, amount: float, seed: int, fill) -> Image.Image:
    """Pull the corners in by up to ``amount`` of the width, like a hand-held camera."""
    rng = random.Random(seed)
    w, h = image.size
    dx = lambda: rng.uniform(0, amount) * w
    src = [(dx(), dx()), (w - dx(), dx()), (w - dx(), h - dx()), (dx(), h - dx())]
    dst = [(0, 0), (w, 0), (w, h), (0, h)]
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([u, v, 1, 0, 0, 0, -x * u, -x * v])
        rows.append([0, 0, 0, u, v, 1, -y * u, -y * v])
    coeffs = np.linalg.solve(np.array(rows, dtype=np.float64),
                             np.array([c for point in src for c in point], dtype=np.float64))
    smaller = image.resize((int(w * 0.94), int(h * 0.94)), Image.Resampling.BICUBIC)
    canvas = Image.new("RGB", (w, h), fill)
    canvas.paste(smaller, ((w - smaller.width) // 2, (h - smaller.height) // 2))
    return canvas.transform((w, h), Image.Transform.PERSPECTIVE, tuple(coeffs),
                            Image.Resampling.BICUBIC, fillcolor=fill)


def image_pdf(jpegs: list[bytes], dpi: int) -> bytes:
    """An image-only PDF, one page per JPEG at its physical size; no text, no dates."""
    buffer = io.BytesIO()
    pdf = Canvas(buffer, invariant=1)
    for jpeg in jpegs:
        with Image.open(io.BytesIO(jpeg)) as im:
            width, height = im.size
        size = (width * POINTS_PER_INCH / dpi, height * POINTS_PER_INCH / dpi)
        pdf.setPageSize(size)
        pdf.drawImage(ImageReader(io.BytesIO(jpeg)), 0, 0, *size)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()
