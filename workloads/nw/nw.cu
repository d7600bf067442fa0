// Needleman-Wunsch global alignment score matrix, (n+1) x (n+1) int32, n a multiple of 16.
// score[i][j] = max(score[i-1][j-1] + (s1[i-1] == s2[j-1] ? match : -mismatch_cost),
//                   score[i-1][j] - penalty, score[i][j-1] - penalty).
// nw_init writes the first row and column; nw_tile is launched once per anti-diagonal of
// 16x16 tiles (blockIdx.x enumerates the tiles of that diagonal), and inside a tile 16 threads
// sweep the 31 cell anti-diagonals in shared memory. All scalar arguments are non-negative
// (NVRTC declares int parameters .u32 in PTX).
#define NT 16
extern "C" __global__ void nw_init(int* score, int n, int penalty)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    score[i * (n + 1)] = -i * penalty;
    score[i] = -i * penalty;
}

extern "C" __global__ void nw_tile(int* score, const unsigned char* s1, const unsigned char* s2, int n, int diag,
                                   int penalty, int match, int mismatch_cost)
{
    __shared__ int tile[NT + 1][NT + 1];
    __shared__ unsigned char a[NT], b[NT];
    int tiles = n / NT;
    int bx = blockIdx.x + max(0, diag - (tiles - 1));
    int by = diag - bx;
    int tx = threadIdx.x;
    int w = n + 1;
    int r0 = by * NT, c0 = bx * NT;
    tile[0][tx + 1] = score[r0 * w + c0 + 1 + tx];
    tile[tx + 1][0] = score[(r0 + 1 + tx) * w + c0];
    if (tx == 0) tile[0][0] = score[r0 * w + c0];
    a[tx] = s1[r0 + tx];
    b[tx] = s2[c0 + tx];
    __syncthreads();
    for (int d = 0; d < 2 * NT - 1; ++d) {
        int y = d - tx;
        if (y >= 0 && y < NT) {
            int sim = (a[y] == b[tx]) ? match : -mismatch_cost;
            int v = tile[y][tx] + sim;
            v = max(v, tile[y][tx + 1] - penalty);
            v = max(v, tile[y + 1][tx] - penalty);
            tile[y + 1][tx + 1] = v;
        }
        __syncthreads();
    }
    for (int y = 0; y < NT; ++y) score[(r0 + 1 + y) * w + c0 + 1 + tx] = tile[y + 1][tx + 1];
}
