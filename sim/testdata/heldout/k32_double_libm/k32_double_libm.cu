// double-precision libm: exp, log, pow, sin, cos with large arguments. NVRTC emits `.func`s
// (__internal_accurate_pow, __internal_trig_reduction_slowpathd) and `call.uni` for pow/sin.
extern "C" __global__ void dlibm(const double* x, const double* y, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    out[i * 5 + 0] = exp(b);
    out[i * 5 + 1] = log(fabs(a) + 1.0);
    out[i * 5 + 2] = pow(fabs(b) + 0.5, 1.75);
    out[i * 5 + 3] = sin(a);
    out[i * 5 + 4] = cos(a * 1e-3);
}
