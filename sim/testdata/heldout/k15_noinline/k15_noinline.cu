// __noinline__ device functions (PTX .func + call): scalar args, a pointer arg, a float return,
// a recursion-free call chain, called from divergent code.
__device__ __noinline__ int mix(int a, int b, unsigned c) {
    int r = a * 31 + b;
    for (unsigned k = 0; k < (c & 7); ++k) r = (r << 1) ^ (r >> 3) ^ (int)k;
    return r;
}
__device__ __noinline__ float poly(const float* coef, int deg, float x) {
    float r = 0.0f;
    for (int k = deg; k >= 0; --k) r = r * x + coef[k];
    return r;
}
__device__ __noinline__ void store2(int* p, int v, float f) {
    p[0] = v + mix(v, 1, 3u);
    p[1] = __float_as_int(f);
}
extern "C" __global__ void calls(const int* in, const float* coef, int* out, float* fout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    float f = 0.0f;
    if (v & 1) f = poly(coef, 4, (float)(v % 10) * 0.25f);
    else v = mix(v, i, (unsigned)v);
    store2(out + 2 * i, v, f);
    fout[i] = f;
}
