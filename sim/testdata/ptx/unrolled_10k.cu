// Benchmark input for benches/ptx_frontend.rs: a long straight-line kernel (~10k PTX
// instructions) built by macro expansion, with a data-dependent (divergent) branch in every
// step.
#define STEP(K)                                              \
    if (a > b) c += x[i + (K) * n];                          \
    a = fmaf(a, 1.0001f, b);                                 \
    b = b * 0.999f + c;                                      \
    c = c - a * 0.5f;
#define S10(K) STEP(K) STEP(K + 1) STEP(K + 2) STEP(K + 3) STEP(K + 4) STEP(K + 5) STEP(K + 6) STEP(K + 7) STEP(K + 8) STEP(K + 9)
#define S100(K) S10(K) S10(K + 10) S10(K + 20) S10(K + 30) S10(K + 40) S10(K + 50) S10(K + 60) S10(K + 70) S10(K + 80) S10(K + 90)
extern "C" __global__ void unrolled_10k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = x[i + n], c = 0.f;
    S100(0) S100(100) S100(200) S100(300) S100(400) S100(500) S100(600) S100(700) S100(800) S100(900)
    y[i] = a + b + c;
}
