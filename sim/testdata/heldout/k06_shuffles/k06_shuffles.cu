// warp shuffles: down (reduction), xor (butterfly max), up (inclusive scan), idx with width 8
// (segment broadcast + rotation), all with full warps in convergent code.
extern "C" __global__ void shuffles(const int* in, int* red, float* bmax, int* scan, int* seg, double* dshift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) red[i >> 5] = s;
    float f = (float)v * 0.5f;
    for (int m = 1; m < 32; m <<= 1) f = fmaxf(f, __shfl_xor_sync(0xffffffffu, f, m));
    bmax[i] = f;
    int sc = v;
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, sc, o);
        if (lane >= o) sc += t;
    }
    scan[i] = sc;
    int b = __shfl_sync(0xffffffffu, v, 0, 8);        // broadcast from first lane of each 8-segment
    int r = __shfl_sync(0xffffffffu, v, lane + 1, 8);  // rotate within segment (wraps mod 8)
    int u = __shfl_up_sync(0xffffffffu, v, 3, 16);     // up within 16-lane segments
    int d = __shfl_down_sync(0xffffffffu, v, 5, 16);   // down within 16-lane segments
    seg[i * 4 + 0] = b;
    seg[i * 4 + 1] = r;
    seg[i * 4 + 2] = u;
    seg[i * 4 + 3] = d;
    double dv = (double)v * 1.25;
    dshift[i] = __shfl_xor_sync(0xffffffffu, dv, 7);
}
