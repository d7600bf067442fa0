// integer atomics, global and shared: add (int, unsigned long long), inc/dec with wrap, exch,
// and/or/xor, signed min/max, CAS.
extern "C" __global__ void atomics_int(const int* vals, int n, int* gsum, unsigned* ginc, unsigned* gdec,
                                       int* gexch, unsigned* gbits, int* gminmax,
                                       unsigned long long* g64, int* gcas, int* per_block) {
    __shared__ int s_sum;
    __shared__ unsigned s_or, s_and, s_xor;
    __shared__ int s_min, s_max;
    if (threadIdx.x == 0) { s_sum = 0; s_or = 0; s_and = 0xffffffffu; s_xor = 0; s_min = 0x7fffffff; s_max = -0x7fffffff - 1; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = vals[i];
        atomicAdd(&s_sum, v);
        atomicOr(&s_or, 1u << (i & 31));
        atomicAnd(&s_and, ~(1u << ((unsigned)v & 31)));
        atomicXor(&s_xor, (unsigned)v * 2654435761u);
        atomicMin(&s_min, v);
        atomicMax(&s_max, v);
        atomicAdd(gsum, v);
        atomicInc(ginc, 17u);           // wraps to 0 after reaching 17
        atomicDec(gdec, 5u);            // wraps to 5 at 0 (or >5)
        atomicExch(gexch + (i & 3), 1000 + (i & 3));
        atomicAdd(g64, (unsigned long long)(unsigned)v * 4000000000ull);
        atomicXor(gbits + 2, (unsigned)i);
        atomicOr(gbits, (unsigned)v & 0xff00u);
        atomicAnd(gbits + 1, ~(unsigned)(1u << (i % 29)));
        // CAS: each thread increments its bucket by 1 with a CAS loop
        int* p = gcas + (i & 7);
        int old = *p, assumed;
        do { assumed = old; old = atomicCAS(p, assumed, assumed + 1); } while (old != assumed);
        atomicMin(gminmax, v);
        atomicMax(gminmax + 1, v);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        per_block[blockIdx.x * 6 + 0] = s_sum;
        per_block[blockIdx.x * 6 + 1] = (int)s_or;
        per_block[blockIdx.x * 6 + 2] = (int)s_and;
        per_block[blockIdx.x * 6 + 3] = (int)s_xor;
        per_block[blockIdx.x * 6 + 4] = s_min;
        per_block[blockIdx.x * 6 + 5] = s_max;
    }
}
