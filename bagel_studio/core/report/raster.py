"""A tiny RGB canvas for the report's bar charts: rectangles, lines, text, PNG bytes.

Why not matplotlib: importing it and drawing four figures took longer than writing all the data
files of a 12k-item release. Bar charts need only filled rectangles, straight lines and labels,
which a bytearray and the built-in bitmap font (``glyphs.py``) draw in milliseconds, with the same
bytes on every machine. Text is blended against the colour it is drawn on (``background``), which
is all the charts need: labels sit on the white page.
"""

from __future__ import annotations

import base64
import struct
import zlib
from dataclasses import dataclass
from functools import cache

from bagel_studio.core.report import glyphs

Colour = tuple[int, int, int]
# zlib's level for the pixels: 3 takes half the time of the default 6 on the report's charts
# (mostly white, a few flat colours) for files a quarter larger (99 KB instead of 78 KB for a
# BAGEL-sized release's five charts); they are drawn at the end of an export, while it waits.
_LEVEL = 3
WHITE: Colour = (255, 255, 255)
BLACK: Colour = (0, 0, 0)


def colour(hex_code: str) -> Colour:
    """``(r, g, b)`` of "#rrggbb"."""
    value = int(hex_code.lstrip("#"), 16)
    return (value >> 16, value >> 8 & 255, value & 255)


@dataclass(frozen=True)
class Font:
    height: int
    baseline: int
    cells: tuple[tuple[bytes, ...], ...]  # per character " " to "~": its rows of coverage bytes

    def width(self, text: str) -> int:
        return sum(len(self._cell(c)[0]) for c in text)

    def coverage(self, text: str) -> list[bytes]:
        """The rows of ``text`` set in this font (characters outside ASCII as "?")."""
        cells = [self._cell(c) for c in text]
        return [b"".join(cell[row] for cell in cells) for row in range(self.height)]

    def _cell(self, char: str) -> tuple[bytes, ...]:
        index = ord(char) - 32
        return self.cells[index if 0 <= index < len(self.cells) else ord("?") - 32]


def _load(data: tuple[int, int, str, str]) -> Font:
    height, baseline, widths, strip = data
    pixels = zlib.decompress(base64.b64decode(strip))
    total = len(pixels) // height
    cells = []
    left = 0
    for digit in widths:
        width = int(digit, 16)
        cells.append(
            tuple(pixels[row * total + left : row * total + left + width] for row in range(height))
        )
        left += width
    return Font(height, baseline, tuple(cells))


@cache
def text_font() -> Font:
    """The report plots' body font, loaded once."""
    return _load(glyphs.TEXT)


@cache
def title_font() -> Font:
    """The report plots' title font, loaded once."""
    return _load(glyphs.TITLE)


@cache
def _blend(fg: Colour, bg: Colour) -> tuple[bytes, bytes, bytes]:
    """Per channel, the colour of each coverage value 0-255: tables for ``bytes.translate``."""
    return tuple(  # type: ignore[return-value]
        bytes((b * (255 - a) + f * a + 127) // 255 for a in range(256))
        for f, b in zip(fg, bg, strict=True)
    )


class Canvas:
    """``width`` x ``height`` RGB pixels, white to start with; coordinates clip at the edges."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def rect(self, x0: int, y0: int, x1: int, y1: int, fill: Colour) -> None:
        """Fill the pixels x0 <= x < x1, y0 <= y < y1."""
        x0, x1 = max(x0, 0), min(x1, self.width)
        y0, y1 = max(y0, 0), min(y1, self.height)
        if x0 >= x1 or y0 >= y1:
            return
        run = bytes(fill) * (x1 - x0)
        stride = self.width * 3
        for y in range(y0, y1):
            start = y * stride + x0 * 3
            self.pixels[start : start + len(run)] = run

    def hline(self, x0: int, x1: int, y: int, fill: Colour, dash: int = 0) -> None:
        """A one-pixel horizontal line; dashed with ``dash``-pixel dashes and gaps if given."""
        if not dash:
            self.rect(x0, y, x1, y + 1, fill)
            return
        for x in range(x0, x1, 2 * dash):
            self.rect(x, y, min(x + dash, x1), y + 1, fill)

    def vline(self, x: int, y0: int, y1: int, fill: Colour) -> None:
        self.rect(x, y0, x + 1, y1, fill)

    def frame(self, x0: int, y0: int, x1: int, y1: int, fill: Colour = BLACK) -> None:
        """The outline of the box x0 <= x <= x1, y0 <= y <= y1."""
        self.hline(x0, x1 + 1, y0, fill)
        self.hline(x0, x1 + 1, y1, fill)
        self.vline(x0, y0, y1 + 1, fill)
        self.vline(x1, y0, y1 + 1, fill)

    def text(
        self,
        x: int,
        y: int,
        text: str,
        *,
        font: Font | None = None,
        fill: Colour = BLACK,
        background: Colour = WHITE,
        align: str = "left",
        valign: str = "middle",
        vertical: bool = False,
    ) -> None:
        """Set ``text`` with its ``align`` point ("left", "center", "right") at ``x`` and its
        ``valign`` point ("top", "middle", "bottom") at ``y``; ``vertical`` reads bottom to top
        (alignment then applies to the turned text's box)."""
        font = font or text_font()
        rows = font.coverage(text)
        width, height = (len(rows[0]) if rows else 0), font.height
        if vertical:
            flat = b"".join(rows)
            rows = [flat[column::width] for column in range(width - 1, -1, -1)]
            width, height = height, width
        left = x - {"left": 0, "center": width // 2, "right": width}[align]
        top = y - {"top": 0, "middle": height // 2, "bottom": height}[valign]
        self._blit(left, top, rows, fill, background)

    def _blit(self, left: int, top: int, rows: list[bytes], fill: Colour, bg: Colour) -> None:
        red, green, blue = _blend(fill, bg)
        stride = self.width * 3
        for offset, row in enumerate(rows):
            y = top + offset
            start, end = max(left, 0), min(left + len(row), self.width)
            if not 0 <= y < self.height or start >= end:
                continue
            row = row[start - left : end - left]
            rgb = bytearray(3 * len(row))
            rgb[0::3] = row.translate(red)
            rgb[1::3] = row.translate(green)
            rgb[2::3] = row.translate(blue)
            self.pixels[y * stride + start * 3 : y * stride + end * 3] = rgb

    def png(self) -> bytes:
        """The canvas as an 8-bit RGB PNG: no metadata, so the bytes depend on the pixels only."""
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + self.pixels[y * stride : (y + 1) * stride] for y in range(self.height)
        )
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw, _LEVEL))
            + _chunk(b"IEND", b"")
        )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
