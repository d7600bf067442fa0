// Sum reduction in two launches of the same kernel.
// Each block of B threads reduces 2*B consecutive inputs: every thread adds a pair
// (x[base+t] + x[base+t+B]), a shared-memory tree halves the active threads down to 64
// values, and the first warp finishes with a warp-shuffle stage (__shfl_down_sync).
// Launch 1 writes one partial per block; launch 2 (one block) reduces the partials.
extern "C" __global__ void reduce_sum(const float* in, float* out, int n)
{
    __shared__ float sdata[512];
    unsigned t = threadIdx.x;
    unsigned B = blockDim.x;
    unsigned base = blockIdx.x * 2 * B;
    float v = 0.0f;
    if (base + t < n) v = in[base + t];
    if (base + t + B < n) v += in[base + t + B];
    sdata[t] = v;
    __syncthreads();
    for (unsigned s = B / 2; s > 32; s >>= 1) {
        if (t < s) sdata[t] = sdata[t] + sdata[t + s];
        __syncthreads();
    }
    if (t < 32) {
        float w = sdata[t];
        if (B >= 64) w = w + sdata[t + 32];
        for (int off = 16; off > 0; off >>= 1) {
            w += __shfl_down_sync(0xffffffffu, w, off);
        }
        if (t == 0) out[blockIdx.x] = w;
    }
}
