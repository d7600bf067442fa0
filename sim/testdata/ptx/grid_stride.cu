extern "C" __global__ void saxpy_grid_stride(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
extern "C" __global__ void dot_grid_stride(int n, const double* x, const double* y, double* out) {
    double acc = 0.0;
    for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
        acc += x[i] * y[i];
    atomicAdd(out, acc);
}
