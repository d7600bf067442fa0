struct P { int n; float s; };
extern "C" __global__ void k(P p, float* out) { if ((int)threadIdx.x < p.n) out[threadIdx.x] = p.s * threadIdx.x; }
