// 3D grid and 3D block: every thread writes its coordinates, computed the usual ways.
extern "C" __global__ void grid3d(int* out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int idx = (z * ny + y) * nx + x;
    int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    out[idx * 3 + 0] = tid;
    out[idx * 3 + 1] = bid;
    out[idx * 3 + 2] = (tid & 31) | ((tid >> 5) << 8) | (gridDim.z << 16) | (blockDim.z << 24);
}
