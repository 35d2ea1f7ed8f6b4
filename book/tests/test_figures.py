#!/usr/bin/env python3
"""Tests of the figures' shared rules: book/figures/svg.py's layout_problems (what keeps a figure
legible on a phone) and book/figures/dark.py's dark version. Each test fails if the rule it names
stops holding.

Usage: python3 book/tests/test_figures.py   (Python 3 standard library only; book/ci.sh runs it)
"""

from __future__ import annotations

import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "figures"))

import dark  # noqa: E402
from svg import MAX_WIDTH, MIN_TEXT, Svg, lane_colour, layout_problems, text_width, wrap  # noqa: E402


class Layout(unittest.TestCase):
    def test_a_figure_within_the_rules_passes(self):
        svg = Svg(400, 100, "t", "d")
        svg.text(10, 30, "fits easily")
        svg.text(390, 60, "to the right edge", anchor="end")
        svg.text(200, 90, "centred", anchor="middle")
        self.assertEqual(layout_problems(svg.render()), [])

    def test_too_wide_too_small_and_past_each_edge(self):
        self.assertIn("at most", " ".join(layout_problems(Svg(MAX_WIDTH + 1, 50, "t", "d").render())))
        svg = Svg(300, 100, "t", "d")
        svg.text(10, 30, "small", size=MIN_TEXT - 1)
        self.assertIn("smaller than", " ".join(layout_problems(svg.render())))
        for x, y, anchor in [(250, 50, "start"), (40, 50, "end"), (295, 50, "middle"), (10, 5, "start"),
                             (10, 99, "start")]:
            svg = Svg(300, 100, "t", "d")
            svg.text(x, y, "a label of some length", anchor=anchor)
            problems = layout_problems(svg.render())
            self.assertTrue(problems and "runs past the canvas" in problems[0], (x, y, anchor, problems))

    def test_rotated_text_is_measured_turned(self):
        svg = Svg(300, 100, "t", "d")  # 80 units of text turned upright at y = 50 is taller than 100
        svg.text(20, 50, "a long vertical label", anchor="middle", extra=" transform='rotate(-90 20 50)'")
        self.assertTrue(layout_problems(svg.render()))
        svg = Svg(300, 200, "t", "d")
        svg.text(20, 100, "a long vertical label", anchor="middle", extra=" transform='rotate(-90 20 100)'")
        self.assertEqual(layout_problems(svg.render()), [])

    def test_widths_and_wrapping(self):
        self.assertAlmostEqual(text_width("0000", 10), 4 * 6.4)
        self.assertAlmostEqual(text_width("abcd", 10, mono=True), 4 * 6.02)
        self.assertGreater(text_width("bold", 12, bold=True), text_width("bold", 12))
        lines = wrap("one two three four five six seven eight nine ten", 12, 80)
        self.assertGreater(len(lines), 1)
        self.assertTrue(all(text_width(line, 12) <= 80 for line in lines))
        self.assertEqual(" ".join(lines), "one two three four five six seven eight nine ten")


class Dark(unittest.TestCase):
    def figure(self) -> str:
        svg = Svg(300, 100, "t", "d")
        svg.rect(10, 10, 40, 20, fill=lane_colour(20), stroke="none")
        svg.text(30, 25, "7", fill="#fff", anchor="middle")
        svg.text(100, 25, "grey text", fill="#222")
        svg.text(100, 60, "red text", fill="#c62828")
        svg.line(10, 80, 200, 80, stroke="#2b5d9b")
        return svg.render()

    def test_colours_by_role(self):
        light = self.figure()
        night = dark.dark_version(light)
        canvas = dark.rgb_of(re.search(r"<rect width='100%' height='100%' fill='(#[0-9a-f]{6})'", night).group(1))
        self.assertLess(dark.luminance(canvas), 0.03, "white must become a dark canvas")
        self.assertIn(f"fill='{lane_colour(20)}'", night, "a lane's fill must keep its colour")
        self.assertIn(">7</text>", night)
        self.assertRegex(night, r"fill='#ffffff'[^>]*>7</text>", "white text on a lane stays white")
        for text, least in (("grey text", 4.5), ("red text", 4.5)):
            colour = re.search(rf"fill='(#[0-9a-f]{{6}})'[^>]*>{text}</text>", night).group(1)
            self.assertGreaterEqual(dark.contrast(dark.rgb_of(colour), dark.CANVAS), least, text)
        red = re.search(r"fill='(#[0-9a-f]{6})'[^>]*>red text</text>", night).group(1)
        r, g, b = dark.rgb_of(red)
        self.assertTrue(r > g and r > b, f"red text must stay red, got {red}")
        line = re.search(r"<line[^>]*stroke='(#[0-9a-f]{6})'", night).group(1)
        self.assertGreaterEqual(dark.contrast(dark.rgb_of(line), dark.CANVAS), 3.0)

    def test_every_element_is_kept(self):
        light = self.figure()
        night = dark.dark_version(light)
        strip = lambda s: re.sub(r"#[0-9a-fA-F]{3,6}", "#", s)  # noqa: E731
        self.assertEqual(strip(light), strip(night), "only colours may change")

    def test_colours_it_cannot_follow_are_errors(self):
        for bad in ("fill='red'", "fill='rgb(1,2,3)'", "style='fill:#fff'", "class='x'"):
            svg = Svg(100, 100, "t", "d")
            svg.add(f"<rect x='0' y='0' width='10' height='10' {bad}/>")
            with self.assertRaises(dark.DarkError, msg=bad):
                dark.dark_version(svg.render())


if __name__ == "__main__":
    unittest.main()
