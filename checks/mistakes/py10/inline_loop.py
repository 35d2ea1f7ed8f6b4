"""A typical mistake of py10: the count written inside the kernel, the device functions
defined beside it and never called.

Exercise py10: device functions.

A kernel (@cuda.jit) is launched from the host, with a grid; a device function,
@cuda.jit(device=True), is called from a kernel or from another device function, by one thread,
like any function: it takes values and returns one. Numba compiles it into the kernel that
calls it, so it costs no launch; it cannot be launched, and a plain Python function, without the
decorator, cannot be called from a kernel at all.

The Collatz sequence from a whole number n > 0: halve an even n, make an odd n 3 * n + 1, until
n is 1. For each x[i], the kernel below (already written) stores the number of steps to reach 1
(27 takes 111 steps; 1 takes none). Write the two device functions it calls: next_collatz(n),
one step, and collatz_steps(n), the count, which calls next_collatz.
"""

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x", "i32")


# TODO: make next_collatz and collatz_steps device functions, ones a kernel can call.
@cuda.jit(device=True)
def next_collatz(n):
    # TODO: an odd n becomes 3 * n + 1 (an even one is halved, as below).
    if n % 2 == 1:
        return 3 * n + 1
    return n // 2


@cuda.jit(device=True)
def collatz_steps(n):
    steps = 0
    # TODO: step with next_collatz until n is 1, counting the steps.
    while n != 1:
        n = next_collatz(n)
        steps += 1
    return steps


@cuda.jit
def collatz(x, steps):
    i = cuda.grid(1)
    if i < x.size:
        # The loop inline: right counts, but the kernel calls neither device function.
        n = x[i]
        count = 0
        while n != 1:
            n = 3 * n + 1 if n % 2 == 1 else n // 2
            count += 1
        steps[i] = count


THREADS = 128
blocks = (x.size + THREADS - 1) // THREADS
device_steps = cuda.device_array(x.size, dtype=x.dtype)
collatz[blocks, THREADS](cuda.to_device(x), device_steps)
task.write("steps", device_steps.copy_to_host(), "i32")
