"""Prints, as JSON, whether each named kernel of a Numba program loops over its elements.

python3 -c "$(cat kernel_loops.py)" PROGRAM KERNEL...: for each KERNEL, true where the kernel's
own body (or a @cuda.jit(device=True) function of the program it calls) holds a for or while
loop, false where it holds none; null for a kernel the program does not define. Read with
Python's own parser, so a loop in a comment or a string does not count.
"""

import ast
import json
import sys


def name_of(node):
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def loops(function, functions, seen):
    """Whether `function`, or a function of the program it calls, holds a loop."""
    seen.add(function.name)
    for node in ast.walk(function):
        if isinstance(node, (ast.For, ast.While)):
            return True
        if isinstance(node, ast.Call):
            callee = functions.get(name_of(node.func))
            if callee is not None and callee.name not in seen and loops(callee, functions, seen):
                return True
    return False


program, kernels = sys.argv[1], sys.argv[2:]
with open(program, encoding="utf-8") as source:
    tree = ast.parse(source.read(), program)
functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
print(json.dumps({
    kernel: loops(functions[kernel], functions, set()) if kernel in functions else None
    for kernel in kernels
}))
