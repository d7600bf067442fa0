// integer intrinsics: clz, brev, byte_perm, funnelshift l/r (clamp and wrap), popc(ll), ffs,
// umulhi, mulhi, mul24, umul24, umul64hi, clzll, rotations by variable amounts.
extern "C" __global__ void bitops(const unsigned* a, const unsigned* b, unsigned* out, unsigned long long* out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned s = y & 63;
    unsigned* o = out + i * 14;
    o[0] = __clz((int)x);
    o[1] = __brev(x);
    o[2] = __byte_perm(x, y, 0x5140 + (i & 0x7));
    o[3] = __funnelshift_l(x, y, s);
    o[4] = __funnelshift_lc(x, y, s);
    o[5] = __funnelshift_r(x, y, s);
    o[6] = __funnelshift_rc(x, y, s);
    o[7] = __popc(x ^ y);
    o[8] = __ffs((int)(x & y));
    o[9] = __umulhi(x, y);
    o[10] = (unsigned)__mulhi((int)x, (int)y);
    o[11] = (unsigned)__mul24((int)x, (int)y);
    o[12] = __umul24(x, y);
    o[13] = (x << (s & 31)) | (x >> ((32 - (s & 31)) & 31));
    unsigned long long X = ((unsigned long long)x << 32) | y;
    unsigned long long Y = ((unsigned long long)y << 29) ^ x;
    out64[i * 4 + 0] = __umul64hi(X, Y);
    out64[i * 4 + 1] = (unsigned long long)__popcll(X) | ((unsigned long long)__clzll((long long)Y) << 32);
    out64[i * 4 + 2] = __brevll(X);
    out64[i * 4 + 3] = X * Y + (X >> (s)) ;
}
