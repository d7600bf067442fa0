// 2D grid/block, padded shared tile transpose of a non-multiple-of-tile matrix, plus a
// 3-point horizontal stencil read from the tile after __syncthreads.
#define T 16
extern "C" __global__ void tile_transpose(const float* in, float* out, float* sten, int rows, int cols) {
    __shared__ float tile[T][T + 1];
    int c = blockIdx.x * T + threadIdx.x;
    int r = blockIdx.y * T + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (r < rows && c < cols) ? in[r * cols + c] : -1.0f;
    __syncthreads();
    if (r < rows && c < cols) {
        float left = threadIdx.x > 0 ? tile[threadIdx.y][threadIdx.x - 1] : 0.0f;
        float right = threadIdx.x < T - 1 ? tile[threadIdx.y][threadIdx.x + 1] : 0.0f;
        sten[r * cols + c] = left - 2.0f * tile[threadIdx.y][threadIdx.x] + right;
    }
    int oc = blockIdx.y * T + threadIdx.x;  // column in out (= row in in)
    int orow = blockIdx.x * T + threadIdx.y;
    if (orow < cols && oc < rows) out[orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}
