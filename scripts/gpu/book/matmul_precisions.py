"""What tensor cores are for (book/src/half-precision.md): one 8192^3 matrix product through
PyTorch (cuBLAS) in FP32 on the FP32 units, in TF32, FP16 and BF16 on the tensor cores."""
import torch

n = 8192
torch.manual_seed(0)
a32, b32 = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
print(torch.cuda.get_device_name(), "torch", torch.__version__)
exact = a32.double() @ b32.double()
for name, dtype, tf32 in [("fp32", torch.float32, False), ("tf32", torch.float32, True),
                          ("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)]:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = a32.to(dtype), b32.to(dtype)
    for _ in range(3):
        a @ b
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(10):
        c = a @ b
    stop.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(stop) / 10
    err = (c.double() - exact).abs().max().item()
    print(f"{name}: {ms:7.2f} ms, {2 * n**3 / ms / 1e9:6.0f} TFLOP/s, largest error {err:.3g}")
