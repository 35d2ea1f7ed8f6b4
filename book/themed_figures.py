#!/usr/bin/env python3
"""An mdBook preprocessor: each figure of the book in the reader's theme, legible on a phone.

A chapter writes a figure as a plain image, `![alt text](figures/NAME.svg)`. book/figures/generate.py
draws every figure twice: NAME.svg for the light themes and NAME.dark.svg for the dark ones (coal,
navy, ayu). This rewrites each such image into both, in a wrapper:

    <span class="figure"><img class="figure-light" src="figures/NAME.svg" alt="alt text" ...>
    <img class="figure-dark" src="figures/NAME.dark.svg" alt="alt text" ...></span>

book/theme/course.css shows the one that suits the theme class mdBook puts on <html> and hides the
other with `display: none`, which also takes it out of the accessibility tree: a screen reader reads
one alt text. Each image gets its SVG's width and height (the page keeps its place while it loads)
and a minimum width at which its smallest text is SMALLEST_PX CSS pixels; narrower than that, the
wrapper scrolls sideways rather than shrink the figure past reading (course.css says why).

Images in code blocks and code spans are left alone, and so is an image whose SVG is missing
(book/tests/check_book.py reports it). book.toml runs this after course_numbers.py. Python 3
standard library only.
"""

from __future__ import annotations

import json
import math
import re
import sys
from html import escape
from pathlib import Path

SRC = Path(__file__).resolve().parent / "src"
SMALLEST_PX = 9
IMAGE = re.compile(r"!\[((?:\\.|[^\[\]\\]|\[[^\[\]]*\])*)\]\((figures/[A-Za-z0-9_-]+)\.svg\)")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def svg_size(path: Path) -> tuple[float, float, float] | None:
    """(width, height, smallest font-size) of an SVG figure, or None if it is missing."""
    if not path.is_file():
        return None
    text = path.read_text()
    view = re.search(r"viewBox=['\"][-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)", text)
    if not view:
        return None
    sizes = [float(s) for s in re.findall(r"font-size=['\"]([\d.]+)", text)]
    return float(view.group(1)), float(view.group(2)), min(sizes, default=16.0)


def unescaped(alt: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", alt)


def figure(match: re.Match, page_dir: Path) -> str:
    alt, stem = escape(unescaped(match.group(1))), match.group(2)
    size = svg_size(page_dir / f"{stem}.svg")
    attrs = ""
    if size:
        width, height, smallest = size
        least = min(width, math.ceil(width * SMALLEST_PX / smallest))
        attrs = f' width="{width:g}" height="{height:g}" style="min-width: {least:g}px"'
    return (f'<span class="figure"><img class="figure-light" src="{stem}.svg" alt="{alt}"{attrs}>'
            f'<img class="figure-dark" src="{stem}.dark.svg" alt="{alt}"{attrs}></span>')


def rewrite(content: str, page_dir: Path) -> str:
    lines = content.split("\n")
    fence = None
    for n, line in enumerate(lines):
        opening = FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        # Code spans are kept as they are: split on them and rewrite only the text between.
        parts = re.split(r"(`+[^`]*`+)", line)
        lines[n] = "".join(part if i % 2 else IMAGE.sub(lambda m: figure(m, page_dir), part)
                           for i, part in enumerate(parts))
    return "\n".join(lines)


def walk(items: list) -> None:
    for item in items:
        if not isinstance(item, dict) or "Chapter" not in item:
            continue
        chapter = item["Chapter"]
        source = chapter.get("source_path") or ""
        chapter["content"] = rewrite(chapter["content"], (SRC / source).parent)
        walk(chapter.get("sub_items", []))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "supports":
        return 0
    _context, book = json.load(sys.stdin)
    walk(book.get("sections") or book.get("items") or [])
    json.dump(book, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
