// __syncthreads_count/_and/_or (bar.red), __launch_bounds__ (.maxntid/.minnctapersm), and a
// divergent while-loop whose exit is decided warp-wide with __any_sync (all lanes stay in the vote).
extern "C" __global__ void __launch_bounds__(128, 2) sync_votes(const int* in, int* out, int* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -40);
    int any = __syncthreads_or(v > 45);
    int x = v < 0 ? -v : v;
    int k = 0;
    bool active = x > 1;
    while (__any_sync(0xffffffffu, active)) {
        if (active) {
            x = (x & 1) ? x * 3 + 1 : x >> 1;
            ++k;
            active = x > 1 && k < 100;
        }
    }
    if (i < n) {
        out[i * 3 + 0] = cnt;
        out[i * 3 + 1] = all * 2 + any;
        out[i * 3 + 2] = x;
        steps[i] = k;
    }
}
