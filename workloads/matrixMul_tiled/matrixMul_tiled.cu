// Shared-memory tiled matrix multiply C = A * B (row-major, n x n, n a multiple of TILE).
// Each 16x16 block stages one TILE x TILE tile of A and of B per step; accumulation order is
// k = 0 .. n-1, the same as the naive kernel.
#define TILE 16
extern "C" __global__ void matrixMul_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}
