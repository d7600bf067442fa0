// float -> int conversions with saturation (intrinsics, whose out-of-range/NaN results are defined),
// rounding modes, and min/max/fminf/fmaxf with NaN and signed zeros.
extern "C" __global__ void f2i(const float* x, const float* y, int* iout, unsigned* uout, long long* lout, float* fout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    iout[i * 4 + 0] = __float2int_rz(a);
    iout[i * 4 + 1] = __float2int_rn(a);
    iout[i * 4 + 2] = __float2int_rd(a);
    iout[i * 4 + 3] = __float2int_ru(a);
    uout[i * 2 + 0] = __float2uint_rz(a);
    uout[i * 2 + 1] = __float2uint_rn(b);
    lout[i] = __float2ll_rz(a);
    fout[i * 5 + 0] = fminf(a, b);
    fout[i * 5 + 1] = fmaxf(a, b);
    fout[i * 5 + 2] = __saturatef(a);
    fout[i * 5 + 3] = truncf(a) + rintf(b);
    fout[i * 5 + 4] = __int2float_rn(__float2int_rz(b)) + __uint2float_rn((unsigned)i * 123456789u);
}
