// atax (PolyBench/GPU linear-algebra kernel, naive GPU port): y = A^T (A x) for an nx x ny
// row-major A, in the suite's two-kernel structure. One thread per output element, 256-thread
// blocks, direct global loads in the inner loop, no shared memory. As in the suite, the sums
// accumulate in the output array in global memory (`tmp[i] += ...`): without __restrict__ the
// compiler must store every partial sum (the next load may alias it), as the suite's kernels do.
// tmp and y start as the host left them (the spec zero-fills both).

// tmp[i] += A[i][j] * x[j] for j = 0 .. ny-1: thread i walks row i (a warp touches 32 rows, one
// cache line each, re-read for 32 consecutive j), x[j] is the same address for the whole warp.
extern "C" __global__ void atax_kernel1(float* A, float* x, float* tmp, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        for (int j = 0; j < ny; ++j) {
            tmp[i] += A[i * ny + j] * x[j];
        }
    }
}

// y[j] += A[i][j] * tmp[i] for i = 0 .. nx-1: thread j walks column j (a warp reads one row
// segment per step, coalesced), tmp[i] is the same address for the whole warp.
extern "C" __global__ void atax_kernel2(float* A, float* y, float* tmp, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        for (int i = 0; i < nx; ++i) {
            y[j] += A[i * ny + j] * tmp[i];
        }
    }
}
