// mvt (PolyBench/GPU linear-algebra kernel, naive GPU port): x1 += A y1, x2 += A^T y2 for an
// n x n row-major A, in the suite's two-kernel structure. One thread per output element,
// 256-thread blocks, direct global loads in the inner loop, no shared memory; the sums
// accumulate in x1 / x2 in global memory (every partial sum stored: no __restrict__), starting
// from their initial contents.

// x1[i] += A[i][j] * y1[j]: thread i walks row i (32 rows per warp, one line each, re-read for
// 32 consecutive j), y1[j] warp-uniform.
extern "C" __global__ void mvt_kernel1(float* a, float* x1, float* y_1, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; ++j) {
            x1[i] += a[i * n + j] * y_1[j];
        }
    }
}

// x2[i] += A[j][i] * y2[j]: thread i walks column i (coalesced rows), y2[j] warp-uniform.
extern "C" __global__ void mvt_kernel2(float* a, float* x2, float* y_2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; ++j) {
            x2[i] += a[j * n + i] * y_2[j];
        }
    }
}
