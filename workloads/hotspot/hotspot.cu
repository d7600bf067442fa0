// Thermal simulation step (hotspot-style 5-point stencil). Each 16x16 block stages its tile
// plus a one-cell halo in shared memory; cells outside the chip replicate the edge cell.
// t' = t + cap_inv * (power + (tN + tS - 2t) ry_inv + (tW + tE - 2t) rx_inv + (amb - t) rz_inv).
// rows and cols must be multiples of 16.
#define HB 16
extern "C" __global__ void hotspot_step(const float* power, const float* tin, float* tout, int rows, int cols,
                                        float cap_inv, float rx_inv, float ry_inv, float rz_inv, float amb)
{
    __shared__ float t[HB + 2][HB + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * HB + tx;
    int r = blockIdx.y * HB + ty;
    int idx = r * cols + c;
    t[ty + 1][tx + 1] = tin[idx];
    if (ty == 0) t[0][tx + 1] = tin[max(r - 1, 0) * cols + c];
    if (ty == HB - 1) t[HB + 1][tx + 1] = tin[min(r + 1, rows - 1) * cols + c];
    if (tx == 0) t[ty + 1][0] = tin[r * cols + max(c - 1, 0)];
    if (tx == HB - 1) t[ty + 1][HB + 1] = tin[r * cols + min(c + 1, cols - 1)];
    __syncthreads();
    float tc = t[ty + 1][tx + 1];
    float vert = (t[ty][tx + 1] + t[ty + 2][tx + 1] - 2.0f * tc) * ry_inv;
    float horz = (t[ty + 1][tx] + t[ty + 1][tx + 2] - 2.0f * tc) * rx_inv;
    float sink = (amb - tc) * rz_inv;
    tout[idx] = tc + cap_inv * (power[idx] + vert + horz + sink);
}
