// Collatz trajectories: thread i follows x = start + i (64-bit) until it reaches 1 or `cap`
// steps, recording the step count and the peak value; a data-dependent while loop, so warps
// diverge heavily. The longest trajectory is folded into max_steps with atomicMax.
extern "C" __global__ void collatz(unsigned long long start, unsigned* steps, unsigned long long* peak,
                                   unsigned* max_steps, int n, unsigned cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = start + (unsigned long long)i;
    unsigned long long pk = x;
    unsigned s = 0;
    while (x > 1ull && s < cap) {
        x = (x & 1ull) ? 3ull * x + 1ull : x >> 1;
        pk = (x > pk) ? x : pk;
        ++s;
    }
    steps[i] = s;
    peak[i] = pk;
    atomicMax(max_steps, s);
}
