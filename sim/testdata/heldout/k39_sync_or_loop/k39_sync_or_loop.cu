// __syncthreads_or as a loop condition (the whole block iterates until every thread is done),
// __syncthreads_count inside the loop and __syncthreads_and after it; a partial last warp.
extern "C" __global__ void sync_or_loop(const unsigned* in, int* out, int* info) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    int rounds = 0, live = 0;
    while (__syncthreads_or(v != 0u)) {
        live += __syncthreads_count(v > 15u);
        v >>= 2;
        ++rounds;
    }
    int all_even = __syncthreads_and((in[g] & 1u) == 0u);
    int any_big = __syncthreads_or(in[g] > 60000u);
    out[g] = rounds * 100000 + live;
    if (threadIdx.x == 0) {
        info[2 * blockIdx.x] = all_even;
        info[2 * blockIdx.x + 1] = any_big;
    }
}
