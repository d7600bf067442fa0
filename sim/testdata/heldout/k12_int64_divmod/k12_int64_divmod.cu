// integer division/modulo by runtime values including negative divisors/dividends, 32 and 64 bit,
// signed and unsigned; int64 shifts and multiplication.
extern "C" __global__ void divmod(const int* a, const int* b, const long long* c, const long long* d,
                                  int* q32, long long* q64, unsigned* u32, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    long long X = c[i], Y = d[i];
    q32[i * 4 + 0] = x / y;
    q32[i * 4 + 1] = x % y;
    q32[i * 4 + 2] = (x >> (i & 31)) + (x / 7) - (x % -5);
    q32[i * 4 + 3] = abs(x % y) * (y < 0 ? -1 : 1);
    q64[i * 4 + 0] = X / Y;
    q64[i * 4 + 1] = X % Y;
    q64[i * 4 + 2] = (X >> (i & 63)) ^ (long long)((unsigned long long)X >> ((i * 3) & 63));
    q64[i * 4 + 3] = X * (long long)y + (long long)x * (long long)y;
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    u32[i * 2 + 0] = ux / uy;
    u32[i * 2 + 1] = ux % uy;
}
