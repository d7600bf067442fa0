// Matrix transpose out = in^T (rows x cols in, cols x rows out) through a padded 32x33
// shared tile so that both the global reads and the global writes are coalesced and the
// shared-memory column reads are bank-conflict free. Blocks are 32x8; each thread moves 4 rows.
#define TDIM 32
#define TROWS 8
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TDIM][TDIM + 1];
    int x = blockIdx.x * TDIM + threadIdx.x;
    int y = blockIdx.y * TDIM + threadIdx.y;
    for (int j = 0; j < TDIM; j += TROWS) {
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TDIM + threadIdx.x; // column in out = row in in
    y = blockIdx.x * TDIM + threadIdx.y; // row in out = column in in
    for (int j = 0; j < TDIM; j += TROWS) {
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
