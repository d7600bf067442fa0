// sm_80 warp intrinsics (compute_80): __reduce_{add,min,max,and,or,xor}_sync (redux.sync),
// __match_any_sync / __match_all_sync, __syncwarp, and a grid-stride loop with a warp-uniform
// trip count.
extern "C" __global__ void redux(const int* in, int* out, unsigned* masks, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned u = (unsigned)v;
    int* o = out + i * 6;
    o[0] = (int)__reduce_add_sync(0xffffffffu, u);
    o[1] = __reduce_min_sync(0xffffffffu, v);
    o[2] = __reduce_max_sync(0xffffffffu, v);
    o[3] = (int)__reduce_and_sync(0xffffffffu, u | 0xff00u);
    o[4] = (int)__reduce_or_sync(0xffffffffu, u & 0x0f0fu);
    o[5] = (int)__reduce_xor_sync(0xffffffffu, u);
    __syncwarp();
    int pred;
    masks[i * 2 + 0] = __match_any_sync(0xffffffffu, v & 3);
    masks[i * 2 + 1] = __match_all_sync(0xffffffffu, v >> 30, &pred) | (unsigned)(pred != 0);
}
