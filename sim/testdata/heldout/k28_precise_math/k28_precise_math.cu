// precise libdevice math (no fast-math): sinf/cosf with huge arguments (Payne-Hanek slow path,
// uses a local array), expf, logf, powf, atan2f, erff, sqrtf, IEEE division.
extern "C" __global__ void precise(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + i * 8;
    o[0] = sinf(a);
    o[1] = cosf(a);
    o[2] = expf(b);
    o[3] = logf(fabsf(a) + 1.0f);
    o[4] = powf(fabsf(b) + 0.5f, 2.5f);
    o[5] = atan2f(b, a);
    o[6] = erff(b * 0.5f);
    o[7] = a / (b + 100.0f) + sqrtf(fabsf(a));
}
