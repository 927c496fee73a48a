"""Render two example HTML audit reports and screenshot them with headless Chromium.

Audits a Laplace-noise sum whose spec under-declares its sensitivity (a violation) and
the same sum with the right sensitivity (no violation), writes both reports as
standalone HTML to ``docs/`` and takes a screenshot of each with headless Chromium
(Debian package ``chromium``)::

    docs/report_violation.html   docs/report_violation.png
    docs/report_pass.html        docs/report_pass.png

Usage: python scripts/render_report_screenshot.py [--out docs] [--chromium PATH]
                                                 [--width 1280] [--height 6000] [--no-crop]

Chromium's ``--screenshot`` captures the window only, so the window is taller than any
report (``--height``) and the empty background below the footer is cropped away with
Pillow (installed with matplotlib); ``--height 2200 --no-crop`` gives a fixed-size shot.

CI does not run this script; it documents what the HTML report looks like.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from privaudit import CI_STRENGTH, audit
from privaudit.interfaces import write_html_report
from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)

N = 8
UPPER = 2.0
EPSILON = 1.0
SEED = 2026


def noisy_sum(declared_sensitivity: float, name: str, summary: str) -> FunctionMechanism:
    """The sum of N records in [0, UPPER] plus Laplace(declared_sensitivity / ε) noise.

    Substituting one record moves the sum by up to ``UPPER``; a spec that declares less
    claims more privacy than the noise delivers.
    """
    scale = declared_sensitivity / EPSILON
    spec = MechanismSpec(
        name=name,
        summary=summary,
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=UPPER), size=N),
        relation=SubstituteOne(),
        statistic=f"sum of the {N} records",
        sensitivity=(GlobalSensitivity(value=declared_sensitivity),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=EPSILON),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: x.sum() + rng.laplace(0.0, scale, size),
        statistic=lambda x: float(x.sum()),
    )


def find_chromium(explicit: str | None) -> str:
    """The Chromium executable, or exit with how to install it."""
    for candidate in (
        explicit,
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    sys.exit("headless Chromium not found: apt-get update && apt-get install -y chromium")


def screenshot(chromium: str, html: Path, png: Path, width: int, height: int) -> None:
    """Screenshot ``html`` into ``png`` with headless Chromium."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png.resolve()}",
            html.resolve().as_uri(),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0 or not png.exists():
        sys.exit(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")


def crop_background(png: Path, margin: int = 28) -> None:
    """Cut the uniform background below the page's last content row out of ``png``."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        print("Pillow not installed: keeping the uncropped screenshot", file=sys.stderr)
        return
    with Image.open(png) as image:
        rgb = image.convert("RGB")
    width, height = rgb.size
    background = rgb.getpixel((2, height - 2))
    pixels = rgb.load()
    bottom = height - 1
    while bottom > 0 and all(pixels[x, bottom] == background for x in range(0, width, 4)):
        bottom -= 1
    rgb.crop((0, 0, width, min(height, bottom + margin))).save(png)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs")
    parser.add_argument("--chromium", default=None)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=6000)
    parser.add_argument(
        "--no-crop",
        action="store_true",
        help="keep the full window instead of cropping the empty bottom",
    )
    args = parser.parse_args(argv)
    chromium = find_chromium(args.chromium)

    cases = {
        "violation": noisy_sum(
            1.0,
            "noisy_sum_underdeclared",
            f"sum of {N} records in [0, {UPPER:g}] plus Laplace noise; the "
            "spec declares sensitivity 1 although one record moves the sum "
            f"by {UPPER:g}",
        ),
        "pass": noisy_sum(
            UPPER,
            "noisy_sum",
            f"sum of {N} records in [0, {UPPER:g}] plus Laplace noise calibrated "
            f"to the true sensitivity {UPPER:g}",
        ),
    }
    for label, mechanism in cases.items():
        report = audit(mechanism, config=CI_STRENGTH, seed=SEED)
        html = write_html_report(report, args.out / f"report_{label}.html")
        png = args.out / f"report_{label}.png"
        screenshot(chromium, html, png, args.width, args.height)
        if not args.no_crop:
            crop_background(png)
        print(
            f"{label:9s}: verdict {report.verdict}, ε ≥ {report.epsilon_lower_bound:.3g} "
            f"(claim {report.epsilon_claimed:g}) -> {html}, {png}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
