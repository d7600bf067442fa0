// bicg (PolyBench/GPU linear-algebra kernel, naive GPU port): the BiCG sub-kernel s = A^T r,
// q = A p for an nx x ny row-major A, in the suite's two-kernel structure (the CPU loop nest
// split in two). One thread per output element, 256-thread blocks, direct global loads in the
// inner loop, no shared memory; each kernel zeroes its output element first and accumulates in
// it in global memory, so every partial sum is stored (no __restrict__: the next load may alias).

// s[j] = sum_i A[i][j] * r[i]: thread j walks column j (coalesced rows), r[i] warp-uniform.
extern "C" __global__ void bicg_kernel1(float* A, float* r, float* s, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        s[j] = 0.0f;
        for (int i = 0; i < nx; ++i) {
            s[j] += A[i * ny + j] * r[i];
        }
    }
}

// q[i] = sum_j A[i][j] * p[j]: thread i walks row i (32 rows per warp, one line each, re-read
// for 32 consecutive j), p[j] warp-uniform.
extern "C" __global__ void bicg_kernel2(float* A, float* p, float* q, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        q[i] = 0.0f;
        for (int j = 0; j < ny; ++j) {
            q[i] += A[i * ny + j] * p[j];
        }
    }
}
