// 256-bin byte histogram: per-block privatised bins in shared memory (shared atomicAdd),
// merged into the global bins with global atomicAdd. A grid-stride loop covers the input.
// Also tracks the global minimum and maximum byte with atomicMin / atomicMax.
extern "C" __global__ void histogram256(const unsigned char* data, unsigned* bins, unsigned* vmin, unsigned* vmax, int n)
{
    __shared__ unsigned local[256];
    __shared__ unsigned lmin, lmax;
    int t = threadIdx.x;
    for (int b = t; b < 256; b += blockDim.x) local[b] = 0;
    if (t == 0) { lmin = 255u; lmax = 0u; }
    __syncthreads();
    unsigned mymin = 255u, mymax = 0u;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = data[i];
        atomicAdd(&local[v], 1u);
        mymin = min(mymin, v);
        mymax = max(mymax, v);
    }
    atomicMin(&lmin, mymin);
    atomicMax(&lmax, mymax);
    __syncthreads();
    for (int b = t; b < 256; b += blockDim.x) {
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
    }
    if (t == 0) {
        atomicMin(vmin, lmin);
        atomicMax(vmax, lmax);
    }
}
