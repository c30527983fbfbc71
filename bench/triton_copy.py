#!/usr/bin/env python3
"""bench/triton_copy.py [--gib N ...] [--cols N] [--reps N]: Triton's rows
of bench/bandwidth.sh's table, on the GPU machine (Python with torch and
Triton): a ROWS x COLS (default 16384) float16 tensor of 1 and 4 GiB copied by

  ldst  a Triton block copy: each program loads and stores BLOCK
        contiguous elements (tl.load / tl.store, masked tail);
  tma   a Triton tile copy through tensor descriptors (TMA on Hopper):
        each program loads one 64 x 256 box and stores it.

Each kernel's result is checked against the source (torch.equal, on the
device) with the output poisoned first; then the kernel and torch's
device-to-device copy (dst.copy_(src), a cudaMemcpyAsync) are timed in
turns, N each, between CUDA events, and the medians compared: one line per
kernel, in the format of txc-run's time line. Nothing from Triton is
copied into txc; this script only measures it."""
import argparse
import statistics
import sys

try:
    import torch
    import triton
    import triton.language as tl
except Exception as e:  # the machine has no Triton: say so, do not fail
    print(f"triton: not available ({type(e).__name__}: {e})")
    sys.exit(0)


@triton.jit
def ldst_copy(src, dst, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


@triton.jit
def tma_copy(src_desc, dst_desc, BM: tl.constexpr, BN: tl.constexpr, NB: tl.constexpr):
    pid = tl.program_id(0)
    r = pid // NB * BM
    c = pid % NB * BN
    dst_desc.store([r, c], src_desc.load([r, c]))


def timed(fn, reps, other):
    """medians of fn() and other(), taken in turns"""
    a, b = [], []
    for _ in range(5):
        fn()
        other()
    torch.cuda.synchronize()
    for _ in range(reps):
        for f, out in ((fn, a), (other, b)):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            f()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e) * 1e3)  # us
    return statistics.median(a), statistics.median(b)


def report(name, nbytes, us, copy_us, check):
    bw = 2 * nbytes / us * 1e-3
    cbw = 2 * nbytes / copy_us * 1e-3
    print(f"time kernel {name}: median {us:.1f} us, {bw:.0f} GB/s; "
          f"cuMemcpyDtoD {cbw:.0f} GB/s; ratio {bw / cbw:.3f}; check {check}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    print(f"triton {triton.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    COLS = a.cols
    for gib in a.gib:
        rows = gib * (1 << 30) // (COLS * 2)
        src = torch.randn(rows, COLS, device="cuda", dtype=torch.float16)
        dst = torch.empty_like(src)
        scratch = torch.empty_like(src)
        n = src.numel()

        def memcpy():
            scratch.copy_(src)

        BLOCK = 4096
        grid = (triton.cdiv(n, BLOCK),)

        def ldst():
            ldst_copy[grid](src, dst, n, BLOCK=BLOCK, num_warps=4)

        def measure(name, kernel):
            """the kernel's result checked on a poisoned dst, then timed"""
            dst.fill_(float("nan"))
            kernel()
            torch.cuda.synchronize()
            ok = "PASS" if torch.equal(dst, src) else "FAIL"
            us, cus = timed(kernel, a.reps, memcpy)
            report(f"{name}_{gib}GiB", src.numel() * 2, us, cus, ok)

        measure("triton_ldst", ldst)

        try:
            from triton.tools.tensor_descriptor import TensorDescriptor
            BM, BN = 64, 256
            sd = TensorDescriptor.from_tensor(src, [BM, BN])
            dd = TensorDescriptor.from_tensor(dst, [BM, BN])
            tgrid = (rows // BM * (COLS // BN),)

            def tma():
                tma_copy[tgrid](sd, dd, BM=BM, BN=BN, NB=COLS // BN, num_warps=4)

            measure("triton_tma", tma)
        except Exception as e:
            print(f"triton_tma_{gib}GiB: not run ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
        del src, dst, scratch
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
