extern "C" __global__ void fast_math(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = __expf(v) + __logf(v + 1.f) + __sinf(v) * __cosf(v) + rsqrtf(v * v + 1.f) + __fdividef(v, 3.f) + sqrtf(fabsf(v));
    }
}
extern "C" __global__ void precise_math(const double* x, double* y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = sqrt(x[i]) / (x[i] + 2.0); z[i] = (float)x[i] * 1.5f - fminf((float)i, 3.f); }
}
