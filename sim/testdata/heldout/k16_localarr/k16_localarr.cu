// per-thread local arrays indexed by data (-> .local memory): small histogram and insertion sort.
extern "C" __global__ void localarr(const unsigned char* in, int* out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int hist[16];
    int vals[12];
    for (int k = 0; k < 16; ++k) hist[k] = 0;
    for (int k = 0; k < 12; ++k) {
        int v = in[(i * stride + k * 7) % (n * 4)];
        hist[v & 15] += 1;
        vals[k] = v;
    }
    for (int a = 1; a < 12; ++a) {          // insertion sort, data-dependent indices
        int key = vals[a], b = a - 1;
        while (b >= 0 && vals[b] > key) { vals[b + 1] = vals[b]; --b; }
        vals[b + 1] = key;
    }
    int best = 0;
    for (int k = 1; k < 16; ++k) if (hist[k] > hist[best]) best = k;
    out[i * 4 + 0] = best;
    out[i * 4 + 1] = vals[0];
    out[i * 4 + 2] = vals[11];
    out[i * 4 + 3] = vals[in[i] % 12];
}
