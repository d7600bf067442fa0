// scalar parameters of many types: char, unsigned char, short, unsigned short, negative int,
// long long, double, float, unsigned.
extern "C" __global__ void scalars(char c, unsigned char uc, short s, unsigned short us, int neg,
                                   long long ll, double d, float f, unsigned u, long long* out, double* dout) {
    int i = threadIdx.x;
    long long v = 0;
    switch (i) {
        case 0: v = c; break;
        case 1: v = uc; break;
        case 2: v = s; break;
        case 3: v = us; break;
        case 4: v = neg; break;
        case 5: v = ll; break;
        case 6: v = (long long)u; break;
        case 7: v = (long long)(c * s + neg); break;
        default: v = neg / (i - 20) + neg % (i - 3); break;
    }
    out[i] = v;
    dout[i] = d * i + (double)f;
}
