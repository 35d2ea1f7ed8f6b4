"""Prints, as JSON, the device functions each named kernel of a Numba program calls.

python3 -c "$(cat device_calls.py)" PROGRAM KERNEL...: for each KERNEL, the names of the
program's module-level functions decorated @cuda.jit(device=True) (or @jit(device=True)) that the
kernel's own body calls, sorted; null for a kernel the program does not define. Read with Python's
own parser, so comments, strings and a function defined but never called do not count.
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


def is_device(function):
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and name_of(decorator.func) == "jit":
            for keyword in decorator.keywords:
                if keyword.arg == "device" and isinstance(keyword.value, ast.Constant):
                    if keyword.value.value is True:
                        return True
    return False


def calls(function):
    return {name_of(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)}


program, kernels = sys.argv[1], sys.argv[2:]
with open(program, encoding="utf-8") as source:
    tree = ast.parse(source.read(), program)
functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
devices = {name for name, function in functions.items() if is_device(function)}
print(json.dumps({
    kernel: sorted(calls(functions[kernel]) & devices) if kernel in functions else None
    for kernel in kernels
}))
