extern "C" __global__ void k(char c, short s, int i, long long l, long long* out) {
    out[0] = c; out[1] = s; out[2] = i; out[3] = l;
}
