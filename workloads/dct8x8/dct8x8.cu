// Separable 2-D DCT-II of 8x8 blocks of a float image (orthonormal, JPEG-style), forward and
// inverse. A CTA of 64 threads owns a strip of 8 horizontally adjacent blocks (64 x 8 pixels):
//   pass 1: thread t transforms row (t & 7) of block (t >> 3): 8 pixels loaded as two float4,
//           8 outputs, each an 8-tap dot product, into a padded shared tile;
//   pass 2: thread t transforms column t of the strip from the tile and stores the 8 results.
// Coefficients C[k][x] = s(k) cos((2x + 1) k pi / 16), s(0) = 1/sqrt(8), s(k > 0) = 1/2, are
// compile-time constants (fully unrolled loops: they become immediate operands). Every dot
// product is acc = v0 * c0 followed by fmaf(v_i, c_i, acc) for i = 1..7, so the rounding order
// is fixed by the source. Forward: X = C x C^T; inverse: x = C^T X C.
// width must be a multiple of 64 and the height a multiple of 8.
#define DCT_STRIP 64

__device__ __forceinline__ float dct_coef(int k, int x)
{
    // 0.5 cos(m pi / 16), m = 0..7
    const float half_cos[8] = {0.5f,         0.490392640f, 0.461939766f, 0.415734806f,
                               0.353553391f, 0.277785117f, 0.191341716f, 0.0975451610f};
    if (k == 0) return 0.353553391f; // 1 / sqrt(8)
    int m = ((2 * x + 1) * k) & 31;  // cos is 32-periodic in m and even
    if (m > 16) m = 32 - m;
    return m > 8 ? -half_cos[16 - m] : half_cos[m];
}

// out[k] = sum_x C[k][x] v[x] (forward) or sum_x C[x][k] v[x] (inverse), fixed order.
template <bool INVERSE>
__device__ __forceinline__ float dct_dot(const float (&v)[8], int k)
{
    float acc = v[0] * (INVERSE ? dct_coef(0, k) : dct_coef(k, 0));
#pragma unroll
    for (int i = 1; i < 8; ++i) acc = fmaf(v[i], INVERSE ? dct_coef(i, k) : dct_coef(k, i), acc);
    return acc;
}

template <bool INVERSE>
__device__ __forceinline__ void dct_blocks(const float* in, float* out, int width)
{
    __shared__ float tile[8][DCT_STRIP + 1];
    int t = threadIdx.x;
    int x0 = blockIdx.x * DCT_STRIP, y0 = blockIdx.y * 8;
    int b = t >> 3, r = t & 7;
    float v[8];
    const float4* src = reinterpret_cast<const float4*>(in + (y0 + r) * width + x0 + 8 * b);
    float4 p = src[0], q = src[1];
    v[0] = p.x; v[1] = p.y; v[2] = p.z; v[3] = p.w;
    v[4] = q.x; v[5] = q.y; v[6] = q.z; v[7] = q.w;
#pragma unroll
    for (int k = 0; k < 8; ++k) tile[r][8 * b + k] = dct_dot<INVERSE>(v, k);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = tile[i][t];
#pragma unroll
    for (int k = 0; k < 8; ++k) out[(y0 + k) * width + x0 + t] = dct_dot<INVERSE>(v, k);
}

extern "C" __global__ void dct8x8_forward(const float* img, float* coef, int width)
{
    dct_blocks<false>(img, coef, width);
}

extern "C" __global__ void dct8x8_inverse(const float* coef, float* img, int width)
{
    dct_blocks<true>(coef, img, width);
}
