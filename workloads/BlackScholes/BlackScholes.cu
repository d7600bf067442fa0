// European option pricing with the Black-Scholes closed form, one option per thread.
// The cumulative normal distribution uses the 5-term Abramowitz & Stegun polynomial
// (formula 26.2.17). Uses expf, logf, sqrtf and a full-precision division.
__device__ float cnd(float d)
{
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    float c = RSQRT2PI * expf(-0.5f * d * d) * poly;
    return (d > 0.0f) ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float* S, const float* X, const float* T, float* call,
                                         float* put, float r, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = S[i], x = X[i], t = T[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float cnd1 = cnd(d1);
    float cnd2 = cnd(d2);
    float disc = x * expf(-r * t);
    call[i] = s * cnd1 - disc * cnd2;
    put[i] = disc * (1.0f - cnd2) - s * (1.0f - cnd1);
}
