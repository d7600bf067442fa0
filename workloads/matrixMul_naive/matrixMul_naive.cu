// Naive dense matrix multiply C = A * B (row-major, n x n). One thread per output element;
// the dot product runs k = 0 .. n-1 with one fused multiply-add per step.
extern "C" __global__ void matrixMul_naive(const float* A, const float* B, float* C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) {
        acc = fmaf(A[row * n + k], B[k * n + col], acc);
    }
    C[row * n + col] = acc;
}
