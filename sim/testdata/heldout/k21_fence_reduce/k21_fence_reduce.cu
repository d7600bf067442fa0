// threadFenceReduction pattern: per-block shared tree sum, partials to global, __threadfence,
// atomicInc ticket; the last block sums the partials (integer -> order-free, exact).
extern "C" __global__ void fence_reduce(const int* in, int n, int* partial, unsigned* ticket, long long* result) {
    __shared__ int sdata[128];
    __shared__ bool last;
    int t = threadIdx.x;
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sdata[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned v = atomicInc(ticket, gridDim.x);
        last = (v == gridDim.x - 1);
    }
    __syncthreads();
    if (last && t == 0) {
        long long tot = 0;
        for (int b = 0; b < gridDim.x; ++b) tot += ((volatile int*)partial)[b];
        result[0] = tot;
        result[1] = *ticket;
    }
}
