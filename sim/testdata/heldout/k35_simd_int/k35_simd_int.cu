// integer SIMD-ish intrinsics: __dp4a (dp4a; __dp2a_lo and __vabsdiffu4 moved to repro/dp2a_vabsdiff4.ptx), __sad/__usad (sad), __hadd/__rhadd/
// __uhadd/__urhadd (overflow-free averages), __vadd4, abs/llabs, min/max of unsigned.
extern "C" __global__ void simd(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    int* o = out + i * 12;
    o[0] = __dp4a(x, y, i);
    o[1] = (int)__dp4a(ux, uy, (unsigned)i);
    o[2] = __dp4a(x ^ 0x01010101, y, -i);
    o[3] = (int)__sad(x, y, (unsigned)i);
    o[4] = (int)__usad(ux, uy, 7u);
    o[5] = __hadd(x, y);
    o[6] = __rhadd(x, y);
    o[7] = (int)__uhadd(ux, uy);
    o[8] = (int)__urhadd(ux, uy);
    o[9] = (int)__vadd4(uy, ux ^ 0x80808080u);
    o[10] = (int)__vadd4(ux, uy);
    o[11] = abs(x) + (int)min(ux, uy) - (int)max(ux >> 4, uy >> 4);
}
