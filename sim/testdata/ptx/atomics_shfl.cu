extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
extern "C" __global__ void warp_sum(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    unsigned ballot = __ballot_sync(0xffffffff, v > 0.f);
    if ((threadIdx.x & 31) == 0) { atomicAdd(out, v); atomicMax((int*)out + 1, __popc(ballot)); }
    atomicCAS((int*)out + 2, 0, i);
}
