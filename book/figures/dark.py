"""The dark theme's version of a figure, derived from the light one's colours.

Every figure is drawn once, in hex colours on white (svg.Svg). For the book's dark themes (coal,
navy, ayu) generate.py writes NAME.dark.svg beside NAME.svg, with each colour mapped by its role:

* greys and pale tints (backgrounds, grid lines, most text) have their lightness turned over:
  white becomes the near-black canvas, dark grey text becomes light grey, a pale blue panel a dark
  blue one, the hue kept;
* saturated colours that fill shapes (lanes, blocks, bars) stay as they are, so that a lane has the
  same colour in both themes and the white text on it stays white;
* saturated text and lines are lightened, hue kept, until they stand out from the dark canvas
  (WCAG contrast 4.5 for text, 3 for lines);
* text keeps its light-theme colour where that still reads on what lies under it in the dark
  version (white on a lane, say); otherwise it is mapped as above.

A colour this module cannot read (a name other than none, white or black, `currentColor`, a
`style=` attribute or a <style> sheet) is an error: a figure must say its colours as #rrggbb for
its dark version to follow.
"""

from __future__ import annotations

import colorsys
import re

from svg import attributes, number, text_box

CANVAS_LIGHTNESS = 0.105  # white maps to this: #181b1f-ish, a shade above the themes' backgrounds
INK_LIGHTNESS = 0.93  # black maps to this
NAMED = {"white": "#ffffff", "black": "#000000"}
ELEMENT = re.compile(r"<(\w+)\b([^>]*?)(/?)>")
COLOUR_ATTRIBUTE = re.compile(r"\b(fill|stroke)\s*=\s*(['\"])([^'\"]*)\2")


class DarkError(ValueError):
    pass


def rgb_of(colour: str) -> tuple[float, float, float]:
    colour = NAMED.get(colour.strip().lower(), colour.strip())
    match = re.fullmatch(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})", colour)
    if not match:
        raise DarkError(f"colour {colour!r}: write colours as #rrggbb so the dark version can follow")
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return tuple(int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def hex_of(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02x}" for c in rgb)


def luminance(rgb: tuple[float, float, float]) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def neutral(rgb: tuple[float, float, float]) -> bool:
    """A grey or a pale tint: what the dark version turns over rather than keeps."""
    h, lightness, s = colorsys.rgb_to_hls(*rgb)
    return max(rgb) - min(rgb) < 0.25 or lightness > 0.8


def turned_over(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    h, lightness, s = colorsys.rgb_to_hls(*rgb)
    new = CANVAS_LIGHTNESS + (1 - lightness) * (INK_LIGHTNESS - CANVAS_LIGHTNESS)
    return colorsys.hls_to_rgb(h, new, min(s, 0.6))


CANVAS = turned_over((1.0, 1.0, 1.0))


def lightened(rgb: tuple[float, float, float], against: tuple[float, float, float],
              least: float) -> tuple[float, float, float]:
    h, lightness, s = colorsys.rgb_to_hls(*rgb)
    while contrast(colorsys.hls_to_rgb(h, lightness, s), against) < least and lightness < 0.95:
        lightness += 0.01
    return colorsys.hls_to_rgb(h, lightness, s)


def shape_fill(rgb):
    return turned_over(rgb) if neutral(rgb) else rgb


def ink(rgb, least: float):
    """A line's or a text's colour on the dark canvas."""
    return turned_over(rgb) if neutral(rgb) else lightened(rgb, CANVAS, least)


class Backdrop:
    """The opaque shapes drawn so far, light and dark, to find what lies under a text."""

    def __init__(self, width: float, height: float):
        self.shapes: list[tuple[float, float, float, float, tuple, tuple]] = [
            (0, 0, width, height, (1.0, 1.0, 1.0), CANVAS)]

    def add(self, tag: str, attrs: dict[str, str], light, dark) -> None:
        if any(number(attrs.get(k), 1.0) < 1.0 for k in ("fill-opacity", "opacity")):
            return
        if tag == "rect" and "%" not in attrs.get("width", ""):
            x, y = number(attrs.get("x")), number(attrs.get("y"))
            self.shapes.append((x, y, x + number(attrs.get("width")), y + number(attrs.get("height")),
                                light, dark))
        elif tag == "circle":
            cx, cy, r = number(attrs.get("cx")), number(attrs.get("cy")), number(attrs.get("r"))
            self.shapes.append((cx - r, cy - r, cx + r, cy + r, light, dark))

    def under(self, x: float, y: float):
        for left, top, right, bottom, light, dark in reversed(self.shapes):
            if left <= x <= right and top <= y <= bottom:
                return light, dark
        return self.shapes[0][4], self.shapes[0][5]


def dark_version(svg_text: str) -> str:
    """NAME.dark.svg's text from NAME.svg's. Raises DarkError on a colour it cannot follow."""
    if re.search(r"<style\b|\bstyle\s*=|\bclass\s*=|currentColor", svg_text):
        raise DarkError("a <style>, style= or class= attribute, or currentColor: draw with fill= and "
                        "stroke= in #rrggbb so the dark version can follow")
    view = re.search(r"viewBox='[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)'", svg_text)
    backdrop = Backdrop(float(view.group(1)), float(view.group(2))) if view else Backdrop(1e9, 1e9)
    out, last = [], 0
    for element in ELEMENT.finditer(svg_text):
        tag, body = element.group(1), element.group(2)
        attrs = attributes(body)
        text_end = svg_text.find("</text>", element.end()) if tag == "text" else -1
        content = svg_text[element.end():text_end] if tag == "text" else ""

        def recolour(match: re.Match) -> str:
            role, quote, value = match.group(1), match.group(2), match.group(3)
            if value.strip().lower() in ("none", "transparent"):
                return match.group(0)
            rgb = rgb_of(value)
            if tag == "text" and role == "fill":
                left, top, right, bottom = text_box(attrs, content)
                light_under, dark_under = backdrop.under((left + right) / 2, (top + bottom) / 2)
                wanted = min(4.5, contrast(rgb, light_under))
                new = rgb if contrast(rgb, dark_under) >= wanted else ink(rgb, 4.5)
            elif role == "fill":
                new = shape_fill(rgb)
                backdrop.add(tag, attrs, rgb, new)
            else:
                new = ink(rgb, 3.0)
            return f"{role}={quote}{hex_of(new)}{quote}"

        out.append(svg_text[last:element.start()])
        out.append(f"<{tag}{COLOUR_ATTRIBUTE.sub(recolour, body)}{element.group(3)}>")
        last = element.end()
    out.append(svg_text[last:])
    return "".join(out)

