// byte histogram: grid-stride over u8 input, shared-memory atomics on 64 bins, then one global
// atomicAdd per bin per block; bins cleared by a block-stride loop.
#define BINS 64
extern "C" __global__ void hist(const unsigned char* data, unsigned n, unsigned* bins) {
    __shared__ unsigned sh[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&sh[data[i] % BINS], 1u + (data[i] >> 7));
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (sh[b]) atomicAdd(&bins[b], sh[b]);
}
