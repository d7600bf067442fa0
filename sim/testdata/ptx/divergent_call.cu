__device__ __noinline__ int collatz_steps(unsigned long long v) {
    int s = 0;
    while (v != 1) { v = (v & 1) ? 3 * v + 1 : v / 2; ++s; if (s > 1000) break; }
    return s;
}
__device__ __noinline__ float mix(float a, float b, float t) { return a + (b - a) * t; }
extern "C" __global__ void collatz(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = collatz_steps(i + 1);
}
extern "C" __global__ void divergent_while(const int* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    float acc = 0.f;
    while (v > 0) {
        if (v & 1) acc = mix(acc, (float)v, 0.25f); else acc += 1.f;
        v >>= 1;
    }
    switch (i & 3) { case 0: acc *= 2.f; break; case 1: acc -= 1.f; break; case 2: acc = -acc; break; default: break; }
    out[i] = acc;
}
extern "C" __global__ void local_array(const int* in, int* out, int k) {
    int buf[32];
    for (int j = 0; j < 32; ++j) buf[j] = in[threadIdx.x * 32 + j];
    out[threadIdx.x] = buf[k & 31] + buf[(k * 7) & 31];
}
