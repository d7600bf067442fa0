// double precision: arithmetic, fma, division, sqrt, rcp, conversions to/from int64 and float,
// double scalar parameter, grid-stride.
extern "C" __global__ void dmath(const double* x, double* out, long long* iout, double scale, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        double a = x[i];
        double b = x[(i * 7 + 3) % n];
        out[i * 6 + 0] = a * scale + b;
        out[i * 6 + 1] = fma(a, b, -scale);
        out[i * 6 + 2] = a / (b + 3.0);
        out[i * 6 + 3] = sqrt(fabs(a) + 1e-3);
        out[i * 6 + 4] = (double)(float)(a * 1e3);
        out[i * 6 + 5] = fmax(a, b) - fmin(a, b);
        iout[i * 2 + 0] = (long long)(a * 1e12);
        iout[i * 2 + 1] = __double2ll_rn(b * 1e6);
    }
}
