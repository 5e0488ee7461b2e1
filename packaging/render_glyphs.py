"""Rasterize the report plots' bitmap font (``bagel_studio/core/report/glyphs.py``) from DejaVu
Sans; run after changing a size or the characters:
    python packaging/render_glyphs.py [PATH/TO/DejaVuSans.ttf]

Needs Pillow (not a dependency of the application: ``pip install pillow``) and DejaVu Sans
(Debian's fonts-dejavu-core puts it where this script looks first). The font is under the
Bitstream Vera licence, which allows embedding; its notice is kept beside the module it makes
(``LICENSE_DEJAVU.txt``). With DejaVu Sans 2.37 and Pillow 13 (FreeType 2.14) this writes the
module as committed, byte for byte.

Each character " " to "~" is drawn at its baseline into a cell of its rounded advance, wider where
the ink overhangs (drawn shifted right where it overhangs to the left), as 8-bit coverage; the
cells go side by side into one strip, zlib-compressed and base64-encoded (``raster.Font`` reads
it back).
"""

from __future__ import annotations

import base64
import sys
import textwrap
import zlib
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
TARGET = Path(__file__).resolve().parents[1] / "bagel_studio" / "core" / "report" / "glyphs.py"
# name: (pixel size, cell height, baseline row)
FONTS = {"TEXT": (12, 15, 12), "TITLE": (15, 18, 14)}
CHARACTERS = [chr(code) for code in range(32, 127)]

HEADER = '''\
"""The report plots' font: DejaVu Sans rasterized once to 8-bit coverage, printable ASCII only.

A bitmap font built into the package draws the same pixels on every machine (a TrueType renderer
differs between FreeType versions) and costs nothing to load. Each font is: cell height, baseline
row, the cell widths of the characters " " to "~" as hex digits, and the cells side by side as one
strip of coverage bytes, zlib-compressed and base64-encoded. Rasterized with Pillow's FreeType
renderer from DejaVuSans.ttf (Bitstream Vera licence, which allows embedding; its notice is in
``LICENSE_DEJAVU.txt`` beside this module) by ``packaging/render_glyphs.py``: each character drawn
at its baseline, ``TEXT`` at 12 px, ``TITLE`` at 15 px, each cell its rounded advance wide (wider
where the ink overhangs, drawn shifted so nothing is clipped).
"""

from __future__ import annotations
'''


def cell(font: ImageFont.FreeTypeFont, char: str, height: int, baseline: int) -> list[bytes]:
    """The rows of ``char``'s cell, as coverage bytes."""
    advance = round(font.getlength(char))
    left, _, right, _ = font.getbbox(char, anchor="ls")
    shift = max(0, -int(left))
    width = max(advance, int(right) + shift)
    image = Image.new("L", (width, height), 0)
    ImageDraw.Draw(image).text((shift, baseline), char, font=font, fill=255, anchor="ls")
    pixels = image.tobytes()
    return [pixels[row * width : (row + 1) * width] for row in range(height)]


def font_source(name: str, path: Path) -> str:
    """``NAME = (height, baseline, widths, strip)`` as the module spells it."""
    size, height, baseline = FONTS[name]
    font = ImageFont.truetype(str(path), size)
    cells = [cell(font, char, height, baseline) for char in CHARACTERS]
    widths = "".join(f"{len(rows[0]):x}" for rows in cells)
    if any(len(rows[0]) > 15 for rows in cells):
        raise SystemExit(f"{name}: a cell is wider than one hex digit says")
    strip = b"".join(b"".join(rows[row] for rows in cells) for row in range(height))
    encoded = base64.b64encode(zlib.compress(strip, 9)).decode("ascii")
    lines = [f"{name} = (", f"    {height},", f"    {baseline},"]
    lines += [f'    "{part}"' for part in textwrap.wrap(widths, 48)]
    lines[-1] += ","
    lines += [f'    "{part}"' for part in textwrap.wrap(encoded, 92)]
    lines[-1] += ","
    return "\n".join([*lines, ")"]) + "\n"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else FONT
    if not path.is_file():
        raise SystemExit(f"render_glyphs: {path} not found (give the path of DejaVuSans.ttf)")
    fonts = "\n\n".join(font_source(name, path) for name in FONTS)
    TARGET.write_text(f"{HEADER}\n{fonts}", encoding="utf-8")
    print(f"render_glyphs: wrote {TARGET}")


if __name__ == "__main__":
    main()
