// module-scope variables: __constant__ arrays with initialisers (ld.const), a __device__ global
// counter (atomicAdd on a .global symbol) and a __device__ lookup table read with dynamic indices.
__constant__ float c_coef[5] = {0.5f, -1.0f, 0.25f, 2.0f, -0.125f};
__constant__ int c_perm[8] = {3, 1, 7, 0, 6, 2, 5, 4};
__device__ unsigned g_count;
__device__ int g_table[16] = {1, 2, 4, 8, 16, 32, 64, 128, -1, -2, -4, -8, -16, -32, -64, -128};
extern "C" __global__ void consts(const float* x, float* out, int* iout, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i];
        float r = 0.0f;
        for (int k = 4; k >= 0; --k) r = r * a + c_coef[k];
        out[i] = r;
        iout[i] = c_perm[i & 7] * 100 + g_table[(i * 5) & 15];
        atomicAdd(&g_count, 1u + (i & 1));
        g_table[(i * 3) & 15] += 0;  // store to a module global (same value)
    }
    __syncthreads();
    if (i == 0) count[0] = 0;
}
extern "C" __global__ void read_count(unsigned* count) {
    count[1] = g_count;
}
