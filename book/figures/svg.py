"""Drawing primitives shared by every figure: an SVG canvas, fonts and text widths, the lane palette,
and the rules every figure keeps to stay legible on a phone (`layout_problems`)."""

from __future__ import annotations

import colorsys
import math
import re
from html import escape, unescape

WARP = 32

FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
MONO = "font-family='DejaVu Sans Mono, Menlo, Consolas, monospace'"

# The book shows a figure no narrower than 3/4 of its width (book/theme/course.css, the figure
# wrapper), so text of 12 units is at least 9 CSS pixels on a phone; wider than 720 units, a figure
# would scroll sideways on a 400-pixel phone by more than half its width.
MAX_WIDTH = 720
MIN_TEXT = 12

# DejaVu Sans's advance widths in hundredths of an em, characters 32 to 126, regular and bold
# (read from the fonts' hmtx tables). DejaVu is wider than Helvetica and Arial, the fallbacks, so a
# width measured with it is an upper bound for them too. Other characters are counted as 1 em wide
# unless listed.
_SANS = [32, 40, 46, 84, 64, 95, 78, 27, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64,
         64, 64, 64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 77, 75, 29, 29, 66, 56, 86, 75,
         79, 60, 79, 69, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35,
         63, 63, 28, 28, 58, 28, 97, 63, 61, 63, 63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84]
_SANS_BOLD = [35, 46, 52, 84, 70, 100, 87, 31, 46, 46, 52, 84, 38, 42, 38, 37, 70, 70, 70, 70, 70, 70,
              70, 70, 70, 70, 40, 40, 84, 84, 84, 58, 100, 77, 76, 73, 83, 68, 68, 82, 84, 37, 37, 77, 64,
              100, 84, 85, 73, 85, 77, 72, 68, 81, 77, 110, 77, 72, 73, 46, 37, 46, 84, 50, 50, 67, 72, 59,
              72, 68, 44, 72, 71, 34, 34, 67, 34, 104, 71, 69, 72, 72, 49, 60, 48, 71, 65, 92, 65, 65, 58,
              71, 37, 71, 84]
_OTHER = {"–": 50, "—": 100, "×": 84, "…": 100, "²": 44, "≥": 84, "≤": 84, "µ": 74, "·": 38, "→": 84,
          "←": 84}
MONO_EM = 0.602


def text_width(content: str, size: float, mono: bool = False, bold: bool = False) -> float:
    """The width of a line of text in SVG units, as DejaVu draws it (an upper bound for the others)."""
    if mono:
        return len(content) * MONO_EM * size
    table = _SANS_BOLD if bold else _SANS
    hundredths = sum(table[ord(c) - 32] if 32 <= ord(c) <= 126 else _OTHER.get(c, 100) for c in content)
    return hundredths / 100 * size


def wrap(content: str, size: float, width: float, mono: bool = False, bold: bool = False) -> list[str]:
    """The words of `content` in lines no wider than `width` (a single long word stays whole)."""
    lines: list[str] = []
    for word in content.split(" "):
        if lines and text_width(f"{lines[-1]} {word}", size, mono, bold) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def lane_colour(lane: int) -> str:
    r, g, b = colorsys.hls_to_rgb((lane / WARP) * 0.83, 0.52, 0.62)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


class Svg:
    """A figure: shapes and text on a white canvas, in hex colours only (book/figures/dark.py draws
    the dark theme's version from them). `height` may be changed after drawing."""

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

    def text(self, x, y, content, size=MIN_TEXT, anchor="start", weight="normal", fill="#222", mono=False,
             extra="") -> None:
        font = MONO if mono else FONT
        self.add(f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
                 f"font-weight='{weight}' fill='{fill}' {font}{extra}>{escape(str(content))}</text>")

    def paragraph(self, x, y, content, width=None, size=MIN_TEXT, leading=1.35, **style) -> float:
        """Text wrapped to `width` units (default: to the canvas's right margin, as wide as `x`
        is from the left edge, at least 10), from baseline `y`; returns the baseline after it."""
        if width is None:
            width = self.width - x - max(min(x, 40), 10)
        for line in wrap(str(content), size, width, style.get("mono", False),
                         style.get("weight", "normal") == "bold"):
            self.text(x, y, line, size=size, **style)
            y += size * leading
        return y

    def render(self) -> str:
        head = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {self.width} {self.height}' "
                f"width='{self.width}' height='{self.height}' role='img'>\n"
                f"<title>{escape(self.title)}</title>\n<desc>{escape(self.description)}</desc>\n"
                f"<rect width='100%' height='100%' fill='#ffffff'/>\n")
        return head + "\n".join(self.parts) + "\n</svg>\n"


# ------------------------------------------------------------------------------------------------
# The rules, checked on the SVG text itself so that they hold for every figure, however drawn.

ATTRIBUTE = re.compile(r"([\w:-]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.S)


def attributes(tag_body: str) -> dict[str, str]:
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in ATTRIBUTE.finditer(tag_body)}


def number(value: str | None, default: float = 0.0) -> float:
    match = re.match(r"\s*(-?[\d.]+)", value or "")
    return float(match.group(1)) if match else default


def text_box(attrs: dict[str, str], content: str) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a text element, from its attributes and an estimate of its
    width; a `rotate(A CX CY)` transform is applied to the box's corners."""
    size = number(attrs.get("font-size"), 16)
    mono = "mono" in attrs.get("font-family", "").lower()
    bold = attrs.get("font-weight", "normal") in ("bold", "700", "800", "900")
    w = text_width(unescape(re.sub(r"<[^>]+>", "", content)), size, mono, bold)
    x, y = number(attrs.get("x")), number(attrs.get("y"))
    left = {"middle": x - w / 2, "end": x - w}.get(attrs.get("text-anchor", "start"), x)
    # DejaVu's ascent is 0.93 em and its descent 0.24 em; "gjpqy," dip below the baseline.
    corners = [(left, y - 0.93 * size), (left + w, y + 0.24 * size)]
    rotate = re.search(r"rotate\(\s*(-?[\d.]+)(?:[\s,]+(-?[\d.]+)[\s,]+(-?[\d.]+))?\s*\)",
                       attrs.get("transform", ""))
    if rotate:
        angle = math.radians(float(rotate.group(1)))
        cx, cy = float(rotate.group(2) or 0), float(rotate.group(3) or 0)
        points = [(px, py) for px in (corners[0][0], corners[1][0]) for py in (corners[0][1], corners[1][1])]
        turned = [(cx + (px - cx) * math.cos(angle) - (py - cy) * math.sin(angle),
                   cy + (px - cx) * math.sin(angle) + (py - cy) * math.cos(angle)) for px, py in points]
        xs, ys = [p[0] for p in turned], [p[1] for p in turned]
        return min(xs), min(ys), max(xs), max(ys)
    return corners[0][0], corners[0][1], corners[1][0], corners[1][1]


def layout_problems(svg_text: str) -> list[str]:
    """What keeps a figure from being legible on a phone: a canvas wider than MAX_WIDTH, text
    smaller than MIN_TEXT units, text that runs past the canvas's edges (by estimated width)."""
    problems = []
    view = re.search(r"viewBox\s*=\s*['\"]\s*([-\d.]+)[\s,]+([-\d.]+)[\s,]+([-\d.]+)[\s,]+([-\d.]+)",
                     svg_text)
    if not view:
        return ["no viewBox on the <svg> element"]
    x0, y0, width, height = (float(v) for v in view.groups())
    if width > MAX_WIDTH:
        problems.append(f"{width:g} units wide: at most {MAX_WIDTH}, to stay legible on a phone")
    small: list[tuple[float, str]] = []
    for match in TEXT.finditer(svg_text):
        attrs, content = attributes(match.group(1)), match.group(2)
        shown = unescape(re.sub(r"<[^>]+>", "", content))
        size = number(attrs.get("font-size"), 16)
        if size < MIN_TEXT:
            small.append((size, shown))
        left, top, right, bottom = text_box(attrs, content)
        if left < x0 - 0.5 or right > x0 + width + 0.5 or top < y0 - 0.5 or bottom > y0 + height + 0.5:
            problems.append(f"text {shown[:40]!r} runs past the canvas ({width:g} x {height:g}): it spans "
                            f"x {left:.0f} to {right:.0f}, y {top:.0f} to {bottom:.0f}")
    if small:
        size, shown = min(small)
        problems.append(f"{len(small)} texts smaller than {MIN_TEXT} units, the smallest {size:g} "
                        f"({shown[:40]!r})")
    return problems
