#!/usr/bin/env python3
"""An mdBook preprocessor: the course's numbers and words, written into the book from their sources.

A page writes `{{#targets NN}}` where exercise NN's targets belong and `{{#tolerance NN}}` where
its float tolerance does; the built book has the metadata's own numbers there, so the text cannot
disagree with what `runner check` judges. Three more directives keep an exercise's section true
to the course:

- `{{#hints NN}}`: a folded "Tips" list of exercise NN's hints from exercises.toml, the ones
  `runner hint NN` gives one at a time;
- `{{#passing NN}}`: what a passing `runner check NN` prints, from book/src/outputs/pass-NN.txt
  (written by book/outputs/generate.py from the runner, and checked against it in CI);
- `{{#number NAME}}`: a number the prose quotes from a run of the runner (`numba_add.calls`, a
  count of driver calls; `steps.device_speedup`, a ratio of modelled times), from
  book/src/outputs/numbers.json, which book/outputs/generate.py writes from `runner run --json`
  (book/outputs/run_numbers.py lists the names) and CI holds to the runner;
- `{{#quote NAME}}`: from the same table, the runner's own words that a page quotes (a check's
  diagnosis of a mistake, a missed target); the same as `{{#number}}`, named for what it holds;
- `{{#count KIND}}`: how many exercises exercises.toml has of a kind: `kernel` (CUDA C files),
  `rust` and `python` (whole programs), or `all`;
- `{{#solution PATH}}` or `{{#solution PATH:ANCHOR}}`: like `{{#include}}`, relative to the page,
  but without the exercise's TODO comments: a `// TODO` or `# TODO` line and the comment lines
  that continue it in the exercise's own file (the same path under exercises/) are left out, so
  the solution reads as finished code with only its comments on why.

book.toml runs this before every build:

    [preprocessor.course-numbers]
    command = "python3 course_numbers.py"

mdBook calls it once as `course_numbers.py supports RENDERER` (exit 0: yes) and once with
`[context, book]` as JSON on stdin, expecting the book back on stdout. A directive that names an
exercise without such numbers is an error, so a stale directive fails the build.
book/tests/check_book.py checks the other direction: that every exercise with targets has its
`{{#targets NN}}`, and that numbers written by hand in pages and exercise files agree.

Python 3.11+ standard library only.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
METADATA = REPO / "exercises" / "exercises.toml"
OUTPUTS = REPO / "book" / "src" / "outputs"
DIRECTIVE = re.compile(r"(?<!\\)\{\{#(targets|tolerance|hints|passing)\s+([0-9A-Za-z]+)\s*\}\}")
NUMBER = re.compile(r"(?<!\\)\{\{#(?:number|quote)\s+([\w.-]+)\s*\}\}")
NUMBERS = OUTPUTS / "numbers.json"
COUNT = re.compile(r"(?<!\\)\{\{#count\s+(\w+)\s*\}\}")
SOLUTION = re.compile(r"(?<!\\)\{\{#solution\s+([^}\s]+)\s*\}\}")
TODO = re.compile(r"^\s*(//+|#)\s*TODO\b")


def number(value: float) -> str:
    return f"{value:g}"


def ten_power(value: float) -> str:
    """1e-07 as 10⁻⁷; 0 as 0; anything not a power of ten as written."""
    if value == 0:
        return "0"
    text = f"{value:g}"
    match = re.fullmatch(r"1e([+-]?)0*(\d+)", text)
    if not match:
        return text
    superscript = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    return "10" + ("⁻" if match.group(1) == "-" else "") + match.group(2).translate(superscript)


def targets_sentence(exercise: dict) -> str:
    """The exercise's kernel targets as one sentence, in the order a reader meets them."""
    targets = exercise.get("targets") or {}
    parts = []
    if "max_sectors_per_request" in targets:
        parts.append(f"at most {number(targets['max_sectors_per_request'])} sectors per request in "
                     "global memory")
    if "max_bank_conflicts" in targets:
        conflicts = targets["max_bank_conflicts"]
        parts.append("no bank conflicts" if conflicts == 0 else f"at most {conflicts} bank conflicts")
    # Relative targets: the first names the course's solution, the ones after it say "its".
    # The simulator's modelled time decides only where it was validated on a GPU.
    time_note = (" (measured on a GPU, modelled in the simulator)"
                 if "modelled_time_validated_by" in targets
                 else " (measured on a GPU; the simulator shows its modelled time)")
    relative = [
        ("max_global_sectors_vs_reference", "global-memory sectors", ""),
        ("max_shared_wavefronts_vs_reference", "shared-memory wavefronts", ""),
        ("max_atomics_vs_reference", "atomic operations (every pass of a CAS loop counted)", ""),
        ("max_time_vs_reference", "time", time_note),
    ]
    if targets.get("whole_warps"):
        parts.append("blocks of whole warps (threads per block a multiple of 32)")
    named = False
    if "min_threads_vs_reference" in targets:
        parts.append(f"a launch of at least {number(targets['min_threads_vs_reference'])}× the "
                     "course's solution's threads")
        named = True
    for key, what, note in relative:
        if key in targets:
            whose = "its" if named else "the course's solution's"
            parts.append(f"at most {number(targets[key])}× {whose} {what}{note}")
            named = True
    unknown = sorted(set(targets) - {"max_sectors_per_request", "max_bank_conflicts",
                                     "max_global_sectors_vs_reference",
                                     "max_shared_wavefronts_vs_reference", "max_time_vs_reference",
                                     "min_threads_vs_reference", "modelled_time_validated_by",
                                     "whole_warps", "max_atomics_vs_reference"})
    if unknown:
        raise ValueError(f"exercise {exercise['id']}: no wording for the target(s) {', '.join(unknown)}")
    if not parts:
        raise ValueError(f"exercise {exercise['id']} has no targets for {{{{#targets}}}}")
    label = "Target" if len(parts) == 1 else "Targets"
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"**{label}** (from `exercises.toml`): {listed}."


def tolerance_text(exercise: dict) -> str:
    tolerance = exercise.get("tolerance")
    if not tolerance:
        raise ValueError(f"exercise {exercise['id']} has no tolerance for {{{{#tolerance}}}}")
    return f"absolute {ten_power(tolerance['abs'])}, relative {ten_power(tolerance['rel'])}"


def markdown_text(text: str) -> str:
    """Plain text as Markdown that shows it as written: `code spans` kept, the rest escaped."""
    parts = re.split(r"(`[^`]*`)", text)
    for n in range(0, len(parts), 2):
        parts[n] = (re.sub(r"([\\*_\[\]<>#|])", r"\\\1", parts[n])
                    .replace("&", "&amp;"))
    return "".join(parts)


def hints_fold(exercise: dict) -> str:
    hints = exercise.get("hints") or []
    if not hints:
        raise ValueError(f"exercise {exercise['id']} has no hints for {{{{#hints}}}}")
    items = "\n".join(f"{n}. {markdown_text(hint)}" for n, hint in enumerate(hints, 1))
    return ("<details>\n<summary>Tips</summary>\n\n"
            f"The runner's hints, from a nudge to nearly the answer (`runner hint {exercise['id']}` "
            "gives them one at a time):\n\n"
            f"{items}\n\n</details>")


def passing_block(exercise: dict) -> str:
    path = OUTPUTS / f"pass-{exercise['id']}.txt"
    if not path.is_file():
        raise ValueError(f"exercise {exercise['id']}: no {path.relative_to(REPO)} for {{{{#passing}}}}: "
                         "run python3 book/outputs/generate.py")
    return ("When it passes, `runner check " + exercise["id"] + "` prints this (in the simulator, "
            "its figures left out):\n\n"
            "```text\n" + path.read_text().rstrip("\n") + "\n```")


def anchored(lines: list[str], anchor: str, where: str) -> list[str]:
    start = re.compile(rf"ANCHOR:\s*{re.escape(anchor)}\b")
    end = re.compile(rf"ANCHOR_END:\s*{re.escape(anchor)}\b")
    begin = next((n for n, line in enumerate(lines) if start.search(line)), None)
    finish = None if begin is None else next(
        (n for n in range(begin + 1, len(lines)) if end.search(lines[n])), None)
    if finish is None:
        raise ValueError(f"{where}: no ANCHOR: {anchor} ... ANCHOR_END: {anchor}")
    return lines[begin + 1:finish]


def todo_blocks(exercise_lines: list[str]) -> dict[str, list[str]]:
    """Each TODO comment of an exercise file, by its first line: that line and the comment lines
    that continue it."""
    blocks = {}
    for n, line in enumerate(exercise_lines):
        if not TODO.match(line):
            continue
        marker = TODO.match(line).group(1)
        block = [line]
        for following in exercise_lines[n + 1:]:
            stripped = following.strip()
            if not stripped.startswith(marker) or TODO.match(following) or "ANCHOR" in stripped:
                break
            block.append(following)
        blocks[line] = block
    return blocks


def without_todos(lines: list[str], blocks: dict[str, list[str]]) -> list[str]:
    kept: list[str] = []
    n = 0
    removed = False
    while n < len(lines):
        line = lines[n]
        if TODO.match(line):
            block = blocks.get(line, [line])
            if lines[n:n + len(block)] != block:
                block = [line]
            n += len(block)
            removed = True
            continue
        blank = not line.strip()
        # No blank line left twice in a row, nor one opening a block where a TODO stood.
        doubled = blank and kept and not kept[-1].strip()
        opening = blank and removed and kept and kept[-1].rstrip().endswith(("{", ":"))
        if not (doubled or opening):
            kept.append(line)
        removed = False
        n += 1
    return kept


def solution_text(raw: str, page: Path, where: str) -> str:
    name, _, anchor = raw.partition(":")
    path = (page.parent / name).resolve()
    if not path.is_file():
        raise ValueError(f"{where}: {{{{#solution {raw}}}}}: no file {path}")
    lines = path.read_text().splitlines()
    if anchor:
        lines = anchored(lines, anchor, f"{where}: {{{{#solution {raw}}}}}")
    lines = [line for line in lines if not re.search(r"ANCHOR(_END)?:", line)]
    blocks: dict[str, list[str]] = {}
    relative = path.relative_to(REPO) if path.is_relative_to(REPO) else None
    if relative is not None and relative.parts[0] == "solutions":
        exercise_file = REPO / "exercises" / Path(*relative.parts[1:])
        if exercise_file.is_file():
            blocks = todo_blocks(exercise_file.read_text().splitlines())
    lines = without_todos(lines, blocks)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


_numbers: dict[str, str] | None = None


def run_number(name: str, where: str) -> str:
    global _numbers
    if _numbers is None:
        if not NUMBERS.is_file():
            raise ValueError(f"{where}: no {NUMBERS.relative_to(REPO)} for {{{{#number {name}}}}}: "
                             "run python3 book/outputs/generate.py")
        _numbers = json.loads(NUMBERS.read_text())
    if name not in _numbers:
        raise ValueError(f"{where}: {{{{#number {name}}}}} is not in {NUMBERS.relative_to(REPO)} "
                         "(book/outputs/run_numbers.py makes its names)")
    return _numbers[name]


def exercise_kind(exercise: dict) -> str:
    """`kernel`, or the language of a whole program (`host` in exercises.toml: Rust by default)."""
    host = exercise.get("host")
    if host is None:
        return "kernel"
    return host.get("language", "rust")


def count_text(kind: str, exercises: dict[str, dict], where: str) -> str:
    kinds = [exercise_kind(e) for e in exercises.values()]
    if kind == "all":
        return str(len(kinds))
    if kind not in {"kernel", "rust", "python", "cpp"}:
        raise ValueError(f"{where}: {{{{#count {kind}}}}}: the kinds are kernel, rust, python, cpp "
                         "and all")
    return str(kinds.count(kind))


def expand(text: str, exercises: dict[str, dict], where: str, page: Path) -> str:
    def replace(match: re.Match) -> str:
        kind, ident = match.group(1), match.group(2)
        exercise = exercises.get(ident)
        if exercise is None:
            raise ValueError(f"{where}: {match.group(0)} names no exercise in exercises.toml")
        return {"targets": targets_sentence, "tolerance": tolerance_text, "hints": hints_fold,
                "passing": passing_block}[kind](exercise)

    text = DIRECTIVE.sub(replace, text)
    text = NUMBER.sub(lambda match: run_number(match.group(1), where), text)
    text = COUNT.sub(lambda match: count_text(match.group(1), exercises, where), text)
    return SOLUTION.sub(lambda match: solution_text(match.group(1), page, where), text)


def walk(items: list, exercises: dict[str, dict]) -> None:
    for item in items:
        if not isinstance(item, dict) or "Chapter" not in item:
            continue
        chapter = item["Chapter"]
        source = chapter.get("source_path") or ""
        chapter["content"] = expand(chapter["content"], exercises, source or chapter["name"],
                                    REPO / "book" / "src" / source)
        walk(chapter.get("sub_items", []), exercises)


def load_exercises() -> dict[str, dict]:
    exercises = tomllib.loads(METADATA.read_text()).get("exercise", [])
    return {exercise["id"]: exercise for exercise in exercises}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "supports":
        return 0
    _context, book = json.load(sys.stdin)
    try:
        walk(book.get("sections") or book.get("items") or [], load_exercises())
    except ValueError as err:
        print(f"course_numbers: {err}", file=sys.stderr)
        return 1
    json.dump(book, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
