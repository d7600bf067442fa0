// vector loads/stores: float4, int2 (and __ldg of both), uchar4 byte vectors.
extern "C" __global__ void vecload(const float4* a, const int2* b, const uchar4* c, float4* fo, int2* io, uchar4* co, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = a[i];
    float4 q = __ldg(&a[(i + 1) % n]);
    int2 u = b[i];
    int2 w = __ldg(&b[n - 1 - i]);
    uchar4 k = c[i];
    fo[i] = make_float4(p.x + q.w, p.y * q.z, p.z - q.y, p.w + (float)u.x);
    io[i] = make_int2(u.x - w.y, u.y ^ w.x);
    co[i] = make_uchar4(k.w, k.z + 1, k.y * 2, k.x ^ 0x5a);
}
