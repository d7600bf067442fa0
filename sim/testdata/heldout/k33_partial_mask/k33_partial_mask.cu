// warp operations with partial member masks inside divergent code: the low half-warp reduces with
// __shfl_down_sync(0x0000ffff, ., ., 16) and votes with __ballot_sync(0x0000ffff); the high half
// does a __shfl_xor_sync(0xffff0000) butterfly; odd warps take an extra branch with __syncwarp.
extern "C" __global__ void partial_mask(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int r;
    unsigned b = 0;
    if (lane < 16) {
        r = v;
        for (int o = 8; o > 0; o >>= 1) r += __shfl_down_sync(0x0000ffffu, r, o, 16);
        b = __ballot_sync(0x0000ffffu, v > 0);
    } else {
        r = v;
        for (int m = 1; m < 16; m <<= 1) r = max(r, __shfl_xor_sync(0xffff0000u, r, m));
        b = __ballot_sync(0xffff0000u, v < 0);
    }
    if ((threadIdx.x >> 5) & 1) {
        r += 1000;
        __syncwarp();
    }
    out[i * 2 + 0] = r;
    out[i * 2 + 1] = (int)b;
}
