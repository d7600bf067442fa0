// double-precision libm calls: tan (Payne-Hanek slow path .func for huge arguments), exp, log1p,
// sinh, in a loop with a data-dependent trip count.
extern "C" __global__ void double_math(const double* x, const double* y, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    double s = tan(a) * 1e-3;
    int k = (int)(b) & 3;
    for (int j = 0; j <= k; ++j) s += exp(-b * (j + 1)) + log1p(b + j);
    out[3 * i] = s;
    out[3 * i + 1] = sinh(b * 0.05);
    out[3 * i + 2] = tan(a * 1e-7);
}
