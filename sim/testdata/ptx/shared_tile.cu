#define T 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < n; k0 += T) {
        As[ty][tx] = (row < n && k0 + tx < n) ? A[row * n + k0 + tx] : 0.f;
        Bs[ty][tx] = (col < n && k0 + ty < n) ? B[(k0 + ty) * n + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}
extern "C" __global__ void reduce_dyn_shared(const int* in, int* out, int n) {
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + tid;
    int v = 0;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        for (int off = 16; off > 0; off >>= 1) v = sdata[tid] + __shfl_down_sync(0xffffffff, sdata[tid], off), sdata[tid] = v;
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
