// Block-level prefix sums over int32 data, each block independent.
// scan_inclusive: Hillis-Steele with a double-buffered shared array, one element per thread.
// scan_exclusive: work-efficient up-sweep/down-sweep (Blelloch), two elements per thread;
//                 also writes each block's total to block_sums.
extern "C" __global__ void scan_inclusive(const int* in, int* out, int n)
{
    __shared__ int buf[2][256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int src = 0;
    buf[0][t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = buf[src][t];
        if (t >= off) v += buf[src][t - off];
        buf[src ^ 1][t] = v;
        src ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[src][t];
}

extern "C" __global__ void scan_exclusive(const int* in, int* out, int* block_sums, int n)
{
    __shared__ int s[512];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    s[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0;
    s[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0;
    int stride = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int a = stride * (2 * t + 1) - 1;
            int b = stride * (2 * t + 2) - 1;
            s[b] += s[a];
        }
        stride <<= 1;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = s[m - 1];
        s[m - 1] = 0;
    }
    for (int d = 1; d < m; d <<= 1) {
        stride >>= 1;
        __syncthreads();
        if (t < d) {
            int a = stride * (2 * t + 1) - 1;
            int b = stride * (2 * t + 2) - 1;
            int tmp = s[a];
            s[a] = s[b];
            s[b] += tmp;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}
