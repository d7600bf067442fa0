// Blocked LU decomposition without pivoting, in place: A = L U with L unit lower triangular
// (stored below the diagonal) and U upper triangular, for an n x n row-major matrix, n a
// multiple of 16. lud_prep makes the matrix diagonally dominant (a[i][i] += shift). Then, for
// each 16 x 16 diagonal block s, the host-side sequence launches
//   lud_diagonal  (1 CTA, 16 threads): factors block (s, s) in shared memory;
//   lud_perimeter (one CTA of 32 threads per block right of / below it; not after the last s):
//                 threads 0..15 solve L_ss U_sj = A_sj (one column each), threads 16..31
//                 solve L_is U_ss = A_is (one row each);
//   lud_internal  (one 16 x 16 CTA per trailing block (i, j), i, j > s): A_ij -= L_is U_sj.
// Every update of an element is an explicit fmaf, and the internal kernel's 16-term dot product
// is p = l0 * u0 then fmaf(l_k, u_k, p), subtracted with one rounding: the order is fixed by
// the source. `#pragma unroll 1` keeps the sequential loops rolled (fully unrolled, NVRTC
// keeps all 16 row addresses live and ptxas needs 64 registers for the diagonal and perimeter).
#define LB 16

extern "C" __global__ void lud_prep(float* a, int n, float shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i * n + i] += shift;
}

extern "C" __global__ void lud_diagonal(float* a, int n, int s)
{
    __shared__ float d[LB][LB + 1];
    int tx = threadIdx.x;
    float* blk = a + (s * LB) * n + s * LB;
#pragma unroll 1
    for (int i = 0; i < LB; ++i) d[i][tx] = blk[i * n + tx];
    __syncthreads();
    // right-looking: at step k, thread tx (a row below k) forms its multiplier and updates the
    // rest of its row from row k
#pragma unroll 1
    for (int k = 0; k < LB - 1; ++k) {
        if (tx > k) {
            float l = d[tx][k] / d[k][k];
            d[tx][k] = l;
            for (int j = k + 1; j < LB; ++j) d[tx][j] = fmaf(-l, d[k][j], d[tx][j]);
        }
        __syncthreads();
    }
#pragma unroll 1
    for (int i = 0; i < LB; ++i) blk[i * n + tx] = d[i][tx];
}

extern "C" __global__ void lud_perimeter(float* a, int n, int s)
{
    __shared__ float dg[LB][LB + 1], row[LB][LB + 1], col[LB][LB + 1];
    int tx = threadIdx.x;
    int c = tx & (LB - 1), h = tx >> 4;
    int d0 = s * LB, b0 = (s + 1 + blockIdx.x) * LB;
#pragma unroll 1
    for (int i = h; i < LB; i += 2) {
        dg[i][c] = a[(d0 + i) * n + d0 + c];
        row[i][c] = a[(d0 + i) * n + b0 + c];
        col[i][c] = a[(b0 + i) * n + d0 + c];
    }
    __syncthreads();
    if (tx < LB) {
        // U_sj, column c: forward substitution with the unit lower triangle of the diagonal
#pragma unroll 1
        for (int i = 1; i < LB; ++i) {
            float v = row[i][c];
            for (int k = 0; k < i; ++k) v = fmaf(-dg[i][k], row[k][c], v);
            row[i][c] = v;
        }
    } else {
        // L_is, row c: solve x U_ss = a from the left
#pragma unroll 1
        for (int j = 0; j < LB; ++j) {
            float v = col[c][j];
            for (int k = 0; k < j; ++k) v = fmaf(-col[c][k], dg[k][j], v);
            col[c][j] = v / dg[j][j];
        }
    }
    __syncthreads();
#pragma unroll 1
    for (int i = h; i < LB; i += 2) {
        a[(d0 + i) * n + b0 + c] = row[i][c];
        a[(b0 + i) * n + d0 + c] = col[i][c];
    }
}

extern "C" __global__ void lud_internal(float* a, int n, int s)
{
    __shared__ float lt[LB][LB], ut[LB][LB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int d0 = s * LB;
    int r0 = (s + 1 + blockIdx.y) * LB, c0 = (s + 1 + blockIdx.x) * LB;
    lt[ty][tx] = a[(r0 + ty) * n + d0 + tx];
    ut[ty][tx] = a[(d0 + ty) * n + c0 + tx];
    __syncthreads();
    float p = lt[ty][0] * ut[0][tx];
#pragma unroll
    for (int k = 1; k < LB; ++k) p = fmaf(lt[ty][k], ut[k][tx], p);
    a[(r0 + ty) * n + c0 + tx] -= p;
}
