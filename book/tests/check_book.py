#!/usr/bin/env python3
"""Checks what `mdbook build` lets pass: includes, internal links, and the exercises' pages.

mdbook 0.4 logs a missing include as an error but still exits 0, and an include of an anchor
that does not exist silently includes nothing. So this script checks, over book/src and the built
HTML in book/build:

1. every `{{#include FILE}}` and `{{#include FILE:ANCHOR}}` names a file that exists, and every
   named anchor has an `ANCHOR: name` and an `ANCHOR_END: name` with at least one line between;
2. no `{{#include` survived into the built HTML;
3. every internal link (`href`, `src`) in the built HTML points at a file of the build, and every
   `#fragment` at an id that exists in that page;
4. every exercise in exercises/exercises.toml is taught on its `chapter` page, which is in
   SUMMARY.md, has the heading `## Exercise NN: TITLE {#exercise-NN}` with the metadata's title
   (the id is what other pages link to), says `runner check NN`, includes the exercise's file,
   and, in its own section, has the Tips fold of the runner's hints (`{{#hints NN}}`), what a
   passing check prints (`{{#passing NN}}`, from book/src/outputs/pass-NN.txt, which
   book/outputs/generate.py --check holds to the runner) and the solution inside a <details>
   fold through `{{#solution ../../solutions/FILE...}}`, which leaves out the TODO comments
   (book/course_numbers.py), followed in the fold by a few words on why it works; no Solution
   fold of the built book shows a TODO;
5. the course's numbers cannot drift: an exercise with `targets` has `{{#targets NN}}` in its
   section (book/course_numbers.py writes the metadata's numbers there at build time), and every
   target still written by hand, in its section of the book or in the header comment of its
   exercise file ("at most 1.3x the time", "at most 4 sectors per request", "no bank conflicts"
   or "the target is 40%" in a sentence about targets), equals the metadata's;
6. every figure a page shows (`![alt](figures/NAME.svg)`, outside code) has both its files in
   book/src/figures/: NAME.svg for the light themes and NAME.dark.svg for the dark ones
   (book/figures/generate.py draws both; book/themed_figures.py shows the one that suits the theme);
7. a figure's alt text quotes no number the figure does not show itself (the figures are held
   to the simulator, so numbers read aloud in their place are too).

Usage: python3 book/tests/check_book.py [BUILD_DIR]   (default book/build). Exits 1 on any failure,
listing all of them. Python 3.11+ standard library only.
"""

from __future__ import annotations

import html
import re
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

BOOK = Path(__file__).resolve().parent.parent
SRC = BOOK / "src"
REPO = BOOK.parent
INCLUDE = re.compile(r"(?<!\\)\{\{#(include|solution)\s+([^}\s]+)\s*\}\}")

failures: list[str] = []


def fail(message: str) -> None:
    failures.append(message)


# ---------------------------------------------------------------------------------------------
# 1. Includes


def anchor_lines(text: str, anchor: str) -> list[str] | None:
    """The lines between `ANCHOR: anchor` and `ANCHOR_END: anchor`, or None if either is missing."""
    start = re.compile(rf"ANCHOR:\s*{re.escape(anchor)}\b")
    end = re.compile(rf"ANCHOR_END:\s*{re.escape(anchor)}\b")
    lines = text.splitlines()
    begin = next((n for n, line in enumerate(lines) if start.search(line)), None)
    if begin is None:
        return None
    finish = next((n for n in range(begin + 1, len(lines)) if end.search(lines[n])), None)
    if finish is None:
        return None
    return lines[begin + 1:finish]


def check_includes() -> dict[Path, list[tuple[str, Path, str | None]]]:
    """Checks every include (and `{{#solution}}`, an include without TODO comments); returns, per
    page, its includes as (raw, file, anchor)."""
    found: dict[Path, list[tuple[str, Path, str | None]]] = {}
    for page in sorted(SRC.rglob("*.md")):
        text = page.read_text()
        for match in INCLUDE.finditer(text):
            kind, raw = match.group(1), match.group(2)
            name, _, selector = raw.partition(":")
            target = (page.parent / name).resolve()
            where = f"{page.relative_to(REPO)}: {{{{#{kind} {raw}}}}}"
            found.setdefault(page, []).append((raw, target, selector or None))
            if not target.is_file():
                fail(f"{where}: no file {target.relative_to(REPO) if target.is_relative_to(REPO) else target}")
                continue
            if not selector or re.fullmatch(r"\d*(:\d*)?", selector):
                continue  # the whole file, or a line range
            region = anchor_lines(target.read_text(), selector)
            if region is None:
                fail(f"{where}: no ANCHOR: {selector} ... ANCHOR_END: {selector} in the file")
            elif not any(line.strip() for line in region):
                fail(f"{where}: the anchor {selector} is empty")
    return found


# ---------------------------------------------------------------------------------------------
# 2 and 3. The built HTML


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value is None:
                continue
            if key in ("id", "name"):
                self.ids.add(value)
            elif (key == "href" and tag in ("a", "link")) or (key == "src" and tag in ("img", "script")):
                self.links.append(value)


def check_html(build: Path) -> None:
    if not (build / "index.html").is_file():
        fail(f"{build} has no index.html: did `mdbook build book` run?")
        return
    pages: dict[Path, Page] = {}
    for path in sorted(build.rglob("*.html")):
        parser = Page()
        text = path.read_text(errors="replace")
        parser.feed(text)
        pages[path.resolve()] = parser
        for directive in ("{{#include", "{{#targets", "{{#tolerance", "{{#hints", "{{#passing",
                          "{{#solution"):
            if directive in text:
                fail(f"{path.relative_to(build)}: a {directive}}}}} was left unexpanded")
        folds = [] if path.name == "print.html" else re.findall(
            r"<summary>Solution</summary>(.*?)</details>", text, flags=re.S)
        for fold in folds:
            if re.search(r"\bTODO\b", fold):
                fail(f"{path.relative_to(build)}: a Solution fold shows a TODO comment "
                     "(include solutions with {{#solution PATH}}, not {{#include PATH}})")
    checked = 0
    for path, page in pages.items():
        # print.html repeats every chapter with rewritten links; the chapters themselves are checked.
        if path.name in ("print.html", "toc.html", "404.html"):
            continue
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            checked += 1
            if not target.is_relative_to(build.resolve()) or not target.exists():
                fail(f"{path.relative_to(build.resolve())}: link {link!r} points at nothing in the book")
                continue
            if target.is_dir():
                target = target / "index.html"
            if parts.fragment and target.suffix == ".html":
                ids = pages.get(target.resolve())
                if ids is None or unquote(parts.fragment) not in ids.ids:
                    fail(f"{path.relative_to(build.resolve())}: link {link!r}: no id "
                         f"{parts.fragment!r} in {target.name}")
    if checked == 0:
        fail("no internal links found in the built book: is the checker looking at the right folder?")


# ---------------------------------------------------------------------------------------------
# 4. Exercises


def summary_pages() -> set[str]:
    text = (SRC / "SUMMARY.md").read_text()
    pages = set(re.findall(r"\]\(([^)#]+\.md)\)", text))
    for page in pages:
        if not (SRC / page).is_file():
            fail(f"SUMMARY.md links {page}, which does not exist")
    return pages


def check_exercises(includes: dict[Path, list[tuple[str, Path, str | None]]]) -> int:
    metadata = REPO / "exercises" / "exercises.toml"
    exercises = tomllib.loads(metadata.read_text()).get("exercise", [])
    pages = summary_pages()
    for exercise in exercises:
        number, chapter, file = exercise["id"], exercise["chapter"], exercise["file"]
        who = f"exercise {number} ({file})"
        if chapter not in pages:
            fail(f"{who}: its chapter {chapter} is not in SUMMARY.md")
            continue
        page = (SRC / chapter).resolve()
        text = page.read_text()
        heading = re.search(rf"^## Exercise {number}: (.*?) \{{#exercise-{number}\}}\s*$", text, flags=re.M)
        if heading is None:
            fail(f"{who}: {chapter} has no heading `## Exercise {number}: TITLE {{#exercise-{number}}}`")
        elif heading.group(1) != exercise["title"]:
            fail(f"{who}: {chapter}'s heading says {heading.group(1)!r}; exercises.toml says {exercise['title']!r}")
        if not re.search(rf"`runner check {number}`", text):
            fail(f"{who}: {chapter} does not say `runner check {number}`")
        exercise_file = (REPO / "exercises" / file).resolve()
        solution_file = (REPO / "solutions" / file).resolve()
        targets = [target for _, target, _ in includes.get(page, [])]
        if exercise_file not in targets:
            fail(f"{who}: {chapter} does not include exercises/{file}")
        if solution_file not in targets:
            fail(f"{who}: {chapter} does not include solutions/{file}")
        section = exercise_section(text, number) or ""
        folded = re.findall(r"<details>(.*?)</details>", section, flags=re.S)
        if not any(re.search(rf"\{{\{{#solution [^}}]*solutions/{re.escape(file)}\b", block)
                   for block in folded):
            fail(f"{who}: in {chapter}, its section has no <details> fold with "
                 f"`{{{{#solution ../../solutions/{file}...}}}}` (the solution without its TODO lines)")
        for block in folded:
            if f"solutions/{file}" in block and not re.sub(r"```.*?```", "", block.rsplit("```", 1)[-1],
                                                           flags=re.S).strip():
                fail(f"{who}: in {chapter}, its Solution fold has no words after the code on why it works")
        if re.search(rf"\{{\{{#include [^}}]*solutions/{re.escape(file)}\b", section):
            fail(f"{who}: in {chapter}, its section includes solutions/{file} with {{{{#include}}}}, "
                 "which keeps the TODO lines: use {{#solution}}")
        for kind in ("hints", "passing"):
            named = re.findall(rf"\{{\{{#{kind}\s+([0-9A-Za-z]+)\s*\}}\}}", section)
            if number not in named:
                fail(f"{who}: its section in {chapter} has no `{{{{#{kind} {number}}}}}` "
                     + ("(the Tips fold of the runner's hints)" if kind == "hints"
                        else "(what a passing `runner check` prints)"))
            for other in set(named) - {number}:
                fail(f"{who}: its section in {chapter} has {{{{#{kind} {other}}}}}, another exercise's")
        if not (SRC / "outputs" / f"pass-{number}.txt").is_file():
            fail(f"{who}: no book/src/outputs/pass-{number}.txt: run python3 book/outputs/generate.py")
    return len(exercises)


# ---------------------------------------------------------------------------------------------
# 5. The course's numbers

DIRECTIVE = re.compile(r"(?<!\\)\{\{#(targets|tolerance)\s+([0-9A-Za-z]+)\s*\}\}")
# What a hand-written target looks like, and the metadata key it quotes. The first two are
# specific enough to hold anywhere in a section; the others only in a paragraph about targets.
QUOTED_ANYWHERE = [
    (re.compile(r"at most (\d+(?:\.\d+)?)\s*(?:×|x) the time"), "max_time_vs_reference", 1.0),
    (re.compile(r"at most (\d+(?:\.\d+)?) sectors per request"), "max_sectors_per_request", 1.0),
]
QUOTED_IN_TARGET_PARAGRAPHS = [
    (re.compile(r"\b(?:no|zero)\**\s+bank\s+conflicts"), "max_bank_conflicts", None),
    (re.compile(r"the target is (\d+(?:\.\d+)?)\s*%"), "min_copy_hidden", 100.0),
]


def exercise_section(text: str, number: str) -> str | None:
    """The page's text from `## Exercise NN` to the next level-2 heading."""
    start = re.search(rf"^## Exercise {re.escape(number)}\b.*$", text, flags=re.M)
    if start is None:
        return None
    end = re.search(r"^## ", text[start.end():], flags=re.M)
    return text[start.end():start.end() + end.start()] if end else text[start.end():]


def header_comment(path: Path) -> str:
    """The comment lines at the top of an exercise file, without their comment markers."""
    lines = []
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not stripped.startswith(("//", "#")):
            break
        lines.append(re.sub(r"^(//[!/]?|#)\s?", "", stripped))
    return "\n".join(lines)


def quoted_targets(text: str) -> list[tuple[str, float, str]]:
    """(metadata key, value, the words quoted) for every target written by hand in text."""
    found = []
    for pattern, key, scale in QUOTED_ANYWHERE:
        for match in pattern.finditer(text):
            found.append((key, float(match.group(1)) / scale, match.group(0)))
    for paragraph in re.split(r"\n\s*\n", text):
        if "target" not in paragraph.lower():
            continue
        flat = " ".join(paragraph.split())
        for pattern, key, scale in QUOTED_IN_TARGET_PARAGRAPHS:
            for match in pattern.finditer(flat):
                value = 0.0 if scale is None else float(match.group(1)) / scale
                found.append((key, value, match.group(0)))
    return found


def check_numbers() -> None:
    metadata = REPO / "exercises" / "exercises.toml"
    exercises = tomllib.loads(metadata.read_text()).get("exercise", [])
    by_id = {exercise["id"]: exercise for exercise in exercises}
    for exercise in exercises:
        number, chapter = exercise["id"], exercise["chapter"]
        page = SRC / chapter
        if not page.is_file():
            continue  # reported by check 4
        section = exercise_section(page.read_text(), number)
        if section is None:
            continue  # reported by check 4
        who = f"exercise {number}"
        directives = [(kind, ident) for kind, ident in DIRECTIVE.findall(section)]
        for kind, ident in directives:
            if ident != number:
                fail(f"{who}: its section in {chapter} has {{{{#{kind} {ident}}}}}, another exercise's numbers")
        if exercise.get("targets") and ("targets", number) not in directives:
            fail(f"{who}: exercises.toml sets targets, but its section in {chapter} has no "
                 f"`{{{{#targets {number}}}}}` to show them")
        known = dict(exercise.get("targets") or {})
        known.update({key: value for key, value in (exercise.get("host") or {}).items()
                      if isinstance(value, (int, float))})
        places = [(f"{chapter} (exercise {number}'s section)", DIRECTIVE.sub("", section))]
        source = REPO / "exercises" / exercise["file"]
        if source.is_file():
            places.append((f"exercises/{exercise['file']} (header comment)", header_comment(source)))
        for where, text in places:
            for key, value, words in quoted_targets(text):
                if key not in known:
                    fail(f"{where}: says {words!r}, but exercises.toml sets no {key} for exercise {number}")
                elif abs(float(known[key]) - value) > 1e-9:
                    fail(f"{where}: says {words!r}, but exercises.toml has {key} = {known[key]} "
                         f"for exercise {number}")
    for page in sorted(SRC.rglob("*.md")):
        for kind, ident in DIRECTIVE.findall(page.read_text()):
            exercise = by_id.get(ident)
            if exercise is None or not exercise.get(kind):
                fail(f"{page.relative_to(REPO)}: {{{{#{kind} {ident}}}}}: exercises.toml has no {kind} "
                     f"for exercise {ident}")


# ---------------------------------------------------------------------------------------------
# 6. Figures, light and dark

FIGURE = re.compile(r"!\[(?:\\.|[^\[\]\\]|\[[^\[\]]*\])*\]\(([^)\s]*figures/[^)\s]+?)(?:\.dark)?\.svg\)")


def check_figures() -> int:
    """Checks that every figure shown has its light and dark SVG; returns how many are shown."""
    shown = 0
    for page in sorted(SRC.rglob("*.md")):
        # Code blocks and spans may show the syntax without meaning a figure.
        text = re.sub(r"^(```|~~~).*?^\1", "", page.read_text(), flags=re.S | re.M)
        text = re.sub(r"`[^`\n]*`", "", text)
        for stem in FIGURE.findall(text):
            shown += 1
            for suffix in (".svg", ".dark.svg"):
                path = (page.parent / f"{stem}{suffix}").resolve()
                if not path.is_file():
                    fail(f"{page.relative_to(REPO)}: shows {stem}.svg, but there is no "
                         f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: run "
                         "python3 book/figures/generate.py")
    return shown


# 7. Numbers in a figure's alt text: the figure's own

ALT_IMAGE = re.compile(r'<img\b[^>]*>')
NUMERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")


def numerals(text: str) -> set[str]:
    return set(NUMERAL.findall(html.unescape(text).replace(",", "")))


def check_alt_numbers(build: Path) -> int:
    """A figure's alt text (read aloud in place of the figure) may quote only numbers the figure
    itself shows: the figures are drawn from the simulator and held to it in CI, so a number
    written by hand in the alt text cannot drift from them unnoticed. Returns the images checked."""
    checked = 0
    for page in sorted(build.glob("*.html")):
        for tag in ALT_IMAGE.findall(page.read_text()):
            src = re.search(r'src="([^"]*figures/[^"]+\.svg)"', tag)
            alt = re.search(r'alt="([^"]*)"', tag)
            if not src or not alt:
                continue
            svg = (page.parent / unquote(src.group(1))).resolve()
            if not svg.is_file():
                continue
            checked += 1
            shown = numerals(" ".join(re.findall(r">([^<]+)<", svg.read_text())))
            stray = sorted(numerals(alt.group(1)) - shown)
            if stray:
                fail(f"{page.name}: the alt text of {svg.name} quotes {', '.join(stray)}, which the "
                     "figure does not show: quote the figure's own numbers (or {{#number NAME}})")
    return checked


def main() -> int:
    build = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else BOOK / "build"
    includes = check_includes()
    figures = check_figures()
    check_html(build)
    count = check_exercises(includes)
    check_numbers()
    alts = check_alt_numbers(build)
    if failures:
        print(f"check_book: {len(failures)} problem(s):", file=sys.stderr)
        for message in failures:
            print(f"  - {message}", file=sys.stderr)
        return 1
    total = sum(len(v) for v in includes.values())
    print(f"check_book: {total} includes, the built HTML's internal links, {count} exercises' pages, "
          f"the targets they quote, {figures} figures (light and dark) and the numbers in "
          f"{alts} alt texts are fine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
