// shuffle edge cases: negative / >= width source lanes (wrap modulo width), deltas >= width (own
// value), xor masks reaching outside the segment (own value), delta 0; int64 and double payloads.
extern "C" __global__ void shfl_edge(const long long* in, long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    long long v = in[i];
    int lo = (int)v;
    long long* o = out + i * 8;
    o[0] = __shfl_sync(0xffffffffu, lo, lane - 1);
    o[1] = __shfl_sync(0xffffffffu, lo, 100, 4);
    o[2] = __shfl_down_sync(0xffffffffu, lo, 40);
    o[3] = __shfl_up_sync(0xffffffffu, lo, 0);
    o[4] = __shfl_xor_sync(0xffffffffu, lo, 16, 16);
    o[5] = __shfl_up_sync(0xffffffffu, v, 9, 8);
    o[6] = __shfl_sync(0xffffffffu, v, -3, 16);
    o[7] = (long long)__shfl_down_sync(0xffffffffu, (double)v * 0.5, 3, 4);
}
