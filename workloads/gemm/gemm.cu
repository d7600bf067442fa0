// gemm (PolyBench/GPU linear-algebra kernel, naive GPU port): C = alpha A B + beta C with
// row-major A (ni x nk), B (nk x nj), C (ni x nj), one kernel. One thread per element of C,
// 32x8 blocks (x = column), direct global loads in the k loop, no shared memory. As in the
// suite, C is scaled in place and the products accumulate in C in global memory (every partial
// sum stored: no __restrict__); alpha * A[i][k] is one product, then fused with B[k][j] into C.
extern "C" __global__ void gemm(float* a, float* b, float* c, float alpha, float beta, int ni, int nj,
                                int nk)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; ++k) {
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
        }
    }
}
