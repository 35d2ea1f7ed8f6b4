"""Tests of scripts/module-cycles on crates written in a temporary folder:

    python3 scripts/module_cycles_test.py
"""

import importlib.machinery
import importlib.util
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOADER = importlib.machinery.SourceFileLoader("module_cycles", str(HERE / "module-cycles"))
SPEC = importlib.util.spec_from_loader("module_cycles", LOADER)
cycles = importlib.util.module_from_spec(SPEC)
LOADER.exec_module(cycles)


def crate(root, files):
    """A crate at `root` holding `files` (path under src/ -> text)."""
    for path, text in files.items():
        file = root / "src" / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    return root


class ModuleCycles(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def test_a_circle_through_a_submodule_and_a_group_is_found_with_its_files(self):
        root = crate(self.root / "a", {
            "lib.rs": "mod cli; mod cmd; mod session;",
            "cli.rs": "use crate::{cmd::run, session};",
            "cmd.rs": "mod check;",
            "cmd/check.rs": "use super::super::cli::Args; fn f() { crate::session::go(); }",
            "session.rs": "",
        })
        edges = cycles.graph(root)
        self.assertEqual(cycles.circles(edges), [["cli", "cmd"]])
        self.assertEqual(edges["cmd"]["cli"], ["src/cmd/check.rs"])
        self.assertEqual(sorted(edges["cli"]), ["cmd", "session"])

    def test_comments_strings_and_tests_make_no_import(self):
        root = crate(self.root / "b", {
            "lib.rs": "mod a; mod b;",
            "a.rs": "use crate::b::x;",
            "b.rs": '//! See crate::a::y.\nconst S: &str = "crate::a::z";\n'
                    "#[cfg(test)]\nmod tests {\n    use crate::a::y;\n}\n",
        })
        self.assertEqual(cycles.circles(cycles.graph(root)), [])

    def test_imports_after_a_continued_string_or_a_quote_char_are_seen(self):
        root = crate(self.root / "e", {
            "lib.rs": "mod a; mod b; mod c;",
            # Each import lies between a string or char that fooled the reader and a later
            # string, which it took for the first's end.
            "b.rs": 'const S: &str = "one \\\n two";\nfn f() { crate::a::g(); }\nconst T: &str = "x";\n',
            "c.rs": "const Q: char = '\"';\nfn h() { crate::a::k(); }\nconst T: &str = \"x\";\n",
            "a.rs": "use crate::b::x; use crate::c::y;",
        })
        edges = cycles.graph(root)
        self.assertEqual(sorted(edges["b"]), ["a"])
        self.assertEqual(sorted(edges["c"]), ["a"])

    def test_the_exit_code_says_whether_a_circle_was_found(self):
        circle = crate(self.root / "c", {"x.rs": "use crate::y::f;", "y.rs": "use crate::x::g;"})
        line = crate(self.root / "d", {"x.rs": "use crate::y::f;", "y.rs": ""})
        self.assertEqual(cycles.main([str(circle)]), 1)
        self.assertEqual(cycles.main([str(line)]), 0)

    def test_imports_must_run_down_the_layer_table_and_every_module_needs_a_row(self):
        table = (
            "//! | layer | module | owns |\n//! | --- | --- | --- |\n"
            "//! | leaves | `base`, `util` | what all use |\n//! | top | `api` | the API |\n"
            "mod api; mod base; mod util; mod extra;\n"
        )
        root = crate(self.root / "e", {
            "lib.rs": table,
            "api.rs": "use crate::{base::B, util::u};",
            "util.rs": "use crate::base::B;",
            "base.rs": "use crate::api::Api;",
            "extra.rs": "",
        })
        self.assertEqual(cycles.layers(root), {"base": (0, 0), "util": (0, 1), "api": (1, 0)})
        edges = cycles.graph(root)
        missing, upward = cycles.against_layers(edges, {"api", "base", "util", "extra"}, cycles.layers(root))
        self.assertEqual(missing, ["extra"])
        self.assertEqual([(a, b) for a, b, _ in upward], [("base", "api")])
        self.assertEqual(cycles.main(["--layers", str(root)]), 1)

    def test_a_crate_that_keeps_its_layer_table_passes(self):
        root = crate(self.root / "f", {
            "lib.rs": "//! | layer | module | owns |\n//! | low | `a` | x |\n//! | high | `b` | y |\nmod a; mod b;",
            "a.rs": "",
            "b.rs": "use crate::a::f;",
        })
        self.assertEqual(cycles.main(["--layers", str(root)]), 0)
        no_table = crate(self.root / "g", {"lib.rs": "mod a;", "a.rs": ""})
        self.assertEqual(cycles.main(["--layers", str(no_table)]), 1)
        self.assertEqual(cycles.main([str(no_table)]), 0)


if __name__ == "__main__":
    unittest.main()
