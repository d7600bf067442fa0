// block-wide inclusive scan: warp scans with __shfl_up_sync, warp totals through shared memory,
// second-level scan by warp 0; blocks of 256 (compute_86).
extern "C" __global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
    __shared__ int warp_tot[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += t;
    }
    if (lane == 31) warp_tot[wid] = v;
    __syncthreads();
    if (wid == 0) {
        int nw = blockDim.x >> 5;
        int w = lane < nw ? warp_tot[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            int t = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += t;
        }
        warp_tot[lane] = w;
    }
    __syncthreads();
    if (wid > 0) v += warp_tot[wid - 1];
    if (i < n) out[i] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}
