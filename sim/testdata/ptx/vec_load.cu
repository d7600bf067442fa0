extern "C" __global__ void add4(const float4* a, const float4* b, float4* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 x = a[i], y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}
extern "C" __global__ void half_scale(const int2* a, int2* c, int n, short s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { int2 x = a[i]; c[i] = make_int2(x.x * s, x.y >> 3); }
}
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int counter = 7;
extern "C" __global__ void poly_const(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])); }
    if (i == 0) atomicAdd(&counter, 1);
}
