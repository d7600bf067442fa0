// --use_fast_math implies -ftz=true: f32 denormal inputs/results flush to (sign-preserving) zero
// in mul/add/fma/min/max/setp; also float division by zero, inf - inf, and sqrt of negatives.
extern "C" __global__ void ftz(const float* x, const float* y, float* out, int* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    out[i * 6 + 0] = a * b;
    out[i * 6 + 1] = a + b;
    out[i * 6 + 2] = fmaf(a, b, a);
    out[i * 6 + 3] = fmaxf(a, b * 0.5f);
    out[i * 6 + 4] = a - a * 0.5f;
    out[i * 6 + 5] = (a * 4.0f) * 0.25f;
    flags[i] = (a != 0.0f) | ((b > 0.0f) << 1) | ((a < b) << 2);
}
