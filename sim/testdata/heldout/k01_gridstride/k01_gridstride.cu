// grid-stride loops: u32 index (saxpy with a negative float scalar) and size_t index (int64).
extern "C" __global__ void saxpy_u32(unsigned n, float a, const float* x, float* y) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
extern "C" __global__ void axpy_i64_sizet(size_t n, long long a, const long long* x, long long* y) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        y[i] = a * x[i] + (y[i] >> 3) - (long long)i;
}
