// tiled SGEMM C = A(MxK) * B(KxN) with M, N, K not multiples of the 8x8 tile (bounds checks in the
// tile loads), rectangular grid; compute_80.
#define TS 8
extern "C" __global__ void matmul_rect(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int row = blockIdx.y * TS + threadIdx.y;
    int col = blockIdx.x * TS + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TS - 1) / TS; ++t) {
        int ka = t * TS + threadIdx.x, kb = t * TS + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TS; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
