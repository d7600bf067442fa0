// narrow integer types: i8/u8/i16/u16 loads (sign/zero extension), narrowing stores with
// wrap-around, mixed arithmetic; selp-style ternaries on small types.
extern "C" __global__ void narrow(const signed char* a, const unsigned char* b, const short* c, const unsigned short* d,
                                  signed char* oa, unsigned char* ob, short* oc, unsigned short* od, int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    signed char x = a[i];
    unsigned char y = b[i];
    short z = c[i];
    unsigned short w = d[i];
    oa[i] = (signed char)(x * 3 + y);
    ob[i] = (unsigned char)(y + x);
    oc[i] = (short)(z * 5 - w);
    od[i] = (unsigned short)(w * 3u + (unsigned)z);
    oi[i * 3 + 0] = x * z;
    oi[i * 3 + 1] = (int)y * (int)w - (x < 0 ? z : -z);
    oi[i * 3 + 2] = (x >> 2) + (z >> 3) + (int)(w >> 4) + (int)(y >> 1);
}
