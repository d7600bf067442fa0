// fast-math intrinsics (compiled with --use_fast_math): __expf __logf __sinf __cosf __fdividef
// rsqrtf __saturatef tanhf sqrtf __powf exp2f; approximate -> toleranced.
extern "C" __global__ void fastmath(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + i * 10;
    o[0] = __expf(a);
    o[1] = __logf(b);
    o[2] = __sinf(a);
    o[3] = __cosf(a);
    o[4] = __fdividef(a, b);
    o[5] = rsqrtf(b);
    o[6] = __saturatef(a);
    o[7] = tanhf(a);
    o[8] = sqrtf(b) + expf(a * 0.5f);
    o[9] = __powf(b, 1.5f) + logf(b + 1.0f) + sinf(a) * cosf(b);
}
