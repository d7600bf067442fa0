// syrk (PolyBench/GPU linear-algebra kernel, naive GPU port): C = alpha A A^T + beta C with
// row-major A (n x m) and C (n x n), one kernel. One thread per element of C, 32x8 blocks
// (x = column j), direct global loads in the k loop, no shared memory. A[i][k] is warp-uniform;
// A[j][k] walks 32 rows per warp (one cache line each, re-read for consecutive k). As in the
// suite, C is scaled in place and the products accumulate in C in global memory (every partial
// sum stored: no __restrict__); alpha * A[i][k] is one product, then fused with A[j][k] into C.
extern "C" __global__ void syrk(float* a, float* c, float alpha, float beta, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; ++k) {
            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
        }
    }
}
