// bit fields (bfe/bfi), packed char4 building (prmt), signed bit-field sign extension,
// unsigned/signed comparisons of mixed types, selects.
struct Packed {
    unsigned a : 5;
    unsigned b : 11;
    int c : 7;
    unsigned d : 9;
};
extern "C" __global__ void bitfields(const unsigned* in, unsigned* out, int* sout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned w = in[i];
    union { unsigned u; Packed p; } in_u;
    in_u.u = w;
    Packed p = in_u.p;
    sout[i * 3 + 0] = p.c;
    sout[i * 3 + 1] = (int)p.a - (int)p.d;
    sout[i * 3 + 2] = ((int)w < 0) ? (int)(w >> (p.a)) : -(int)(w >> (p.a & 7));
    Packed q = p;
    q.b = p.a * 3 + p.d;
    q.c = -p.c + 1;
    union { unsigned u; Packed p; } out_u;
    out_u.p = q;
    unsigned r = out_u.u;
    out[i * 4 + 0] = r;
    out[i * 4 + 1] = (w >> 7) & 0x3ff;
    unsigned char c0 = w & 0xff, c1 = (w >> 8) + 1, c2 = (w >> 16) ^ 0x55, c3 = (w >> 24) | 1;
    out[i * 4 + 2] = (unsigned)c3 << 24 | (unsigned)c0 << 16 | (unsigned)c2 << 8 | c1;
    out[i * 4 + 3] = ((long long)w > (long long)(int)w) + 2u * ((unsigned)i < w) + 4u * ((int)i < (int)w);
}
