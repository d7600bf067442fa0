// __noinline__ device functions called from a loop: a pointer argument and an early return, a
// void function with an atomic called under a condition, and a nested call (weight -> clampi).
__device__ __noinline__ int clampi(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }
__device__ __noinline__ int weight(const int* v, int n, int i) {
    if (i <= 0 || i >= n - 1) return v[clampi(i, 0, n - 1)];
    return v[i - 1] + 2 * v[i] + v[i + 1];
}
__device__ __noinline__ void bump(int* h, int b) { atomicAdd(&h[b & 15], 1); }
extern "C" __global__ void noinline_loop(const int* in, int* out, int* hist, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int k = 0; k < iters; ++k) {
        int j = (i * 7 + k) % n;
        acc += weight(in, n, j) ^ k;
        if (j % 3 == 0) bump(hist, j);
    }
    out[i] = acc;
}
