"""Drawing primitives shared by every figure: an SVG canvas, fonts, the lane palette."""

from __future__ import annotations

import colorsys
from html import escape

WARP = 32

FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
MONO = "font-family='DejaVu Sans Mono, Menlo, Consolas, monospace'"


def lane_colour(lane: int) -> str:
    r, g, b = colorsys.hls_to_rgb((lane / WARP) * 0.83, 0.52, 0.62)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


class Svg:
    def __init__(self, width: int, height: int, title: str, description: str):
        self.width = width
        self.height = height
        self.parts: list[str] = []
        self.title = title
        self.description = description

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x, y, w, h, fill="none", stroke="#333", width=1.0, extra="") -> None:
        self.add(f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}' fill='{fill}' "
                 f"stroke='{stroke}' stroke-width='{width}'{extra}/>")

    def line(self, x1, y1, x2, y2, stroke="#333", width=1.0, extra="") -> None:
        self.add(f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{stroke}' "
                 f"stroke-width='{width}'{extra}/>")

    def text(self, x, y, content, size=12, anchor="start", weight="normal", fill="#222", mono=False,
             extra="") -> None:
        font = MONO if mono else FONT
        self.add(f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
                 f"font-weight='{weight}' fill='{fill}' {font}{extra}>{escape(str(content))}</text>")

    def render(self) -> str:
        head = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {self.width} {self.height}' "
                f"width='{self.width}' height='{self.height}' role='img'>\n"
                f"<title>{escape(self.title)}</title>\n<desc>{escape(self.description)}</desc>\n"
                f"<rect width='100%' height='100%' fill='#ffffff'/>\n")
        return head + "\n".join(self.parts) + "\n</svg>\n"

