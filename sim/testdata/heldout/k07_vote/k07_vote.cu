// warp votes in a block of 48 threads (last warp partial): ballot, any, all, activemask, popc,
// and a ballot inside a divergent branch using __activemask() as the member mask.
extern "C" __global__ void vote(const int* in, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned am = __activemask();
    unsigned b = __ballot_sync(am, v > 0);
    int any = __any_sync(am, v > 90);
    int all = __all_sync(am, v > -100);
    unsigned o[6];
    o[0] = b;
    o[1] = (unsigned)any;
    o[2] = (unsigned)all;
    o[3] = am;
    o[4] = (unsigned)__popc(b);
    o[5] = 0;
    if (v & 1) {
        unsigned m = __activemask();
        o[5] = __ballot_sync(m, v > 10) | 0x80000000u;
    }
    for (int k = 0; k < 6; ++k) out[i * 6 + k] = o[k];
}
