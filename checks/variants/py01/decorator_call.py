"""py01 variant: vectorize applied as a call rather than with @ (the plain function kept for the
CPU as well), the inputs made float32 with astype, the device result copied back explicitly."""

import math

import hostkit
import numpy as np
from numba import cuda, vectorize

task = hostkit.Task.open()
x = task.read("x").astype(np.float32)
y = task.read("y").astype(np.float32)


def scaled_hypot_cpu(a, b):
    return math.sqrt(a * a + b * b) / 2.0


scaled_hypot = vectorize("float32(float32, float32)", target="cuda")(scaled_hypot_cpu)

device_out = scaled_hypot(cuda.to_device(x), cuda.to_device(y))
task.write("out", device_out.copy_to_host())
