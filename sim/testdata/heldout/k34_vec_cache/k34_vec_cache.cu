// more vector widths and cache-hint loads/stores: double2, longlong2, short4, ushort2, char2,
// __ldcg/__ldcs/__ldlu/__ldcv (ld.global.cg/.cs/.lu/.cv), __stcg/__stcs/__stwt (st.global.cg/.cs/.wt).
extern "C" __global__ void veccache(const double2* a, const longlong2* b, const short4* c, const ushort2* d,
                                    const char2* e, double2* oa, longlong2* ob, short4* oc, int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double2 p = __ldcg(&a[i]);
    longlong2 q = __ldcs(&b[i]);
    short4 r = c[i];
    ushort2 s = __ldlu(&d[i]);
    char2 t = __ldcv(&e[i]);
    __stcg(&oa[i], make_double2(p.y - p.x, p.x * (double)r.w));
    __stcs(&ob[i], make_longlong2(q.x + (long long)s.x, q.y ^ (long long)t.y));
    oc[i] = make_short4(r.w, (short)(r.z + t.x), (short)(r.y * 2), (short)(r.x - (short)s.y));
    __stwt(&oi[i], (int)t.x * (int)t.y + (int)s.y);
}
