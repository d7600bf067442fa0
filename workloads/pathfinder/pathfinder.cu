// Dynamic programming over a grid of costs: best[r][c] = wall[r][c] + min(best[r-1][c-1..c+1])
// (neighbours outside the row are ignored). pathfinder_rows advances `steps` rows per launch:
// each 256-thread block loads 256 consecutive entries of the previous row into shared memory
// and iterates in shared memory, the valid region shrinking by one cell per side per row
// (ghost zone), so each block produces 256 - 2*steps results.
#define PB 256
extern "C" __global__ void pathfinder_init(const int* wall, int* dst, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) dst[c] = wall[c];
}

extern "C" __global__ void pathfinder_rows(const int* wall, const int* src, int* dst, int cols, int first_row,
                                           int steps)
{
    __shared__ int prev[PB];
    __shared__ int cur[PB];
    int tx = threadIdx.x;
    int out_per_block = PB - 2 * steps;
    int x = blockIdx.x * out_per_block - steps + tx;
    bool inside = (x >= 0 && x < cols);
    if (inside) prev[tx] = src[x];
    __syncthreads();
    for (int i = 0; i < steps; ++i) {
        bool active = inside && tx >= i + 1 && tx <= PB - 2 - i;
        if (active) {
            int best = prev[tx];
            if (x > 0) best = min(best, prev[tx - 1]);
            if (x < cols - 1) best = min(best, prev[tx + 1]);
            cur[tx] = wall[(first_row + i) * cols + x] + best;
        }
        __syncthreads();
        if (active) prev[tx] = cur[tx];
        __syncthreads();
    }
    if (inside && tx >= steps && tx < PB - steps) dst[x] = prev[tx];
}
