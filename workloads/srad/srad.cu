// Speckle-reducing anisotropic diffusion (SRAD), one iteration = two launches.
// srad_coef: directional differences (edge cells replicate) and the diffusion coefficient
//   c = 1 / (1 + (q^2 - q0^2) / (q0^2 (1 + q0^2))), clamped to [0, 1], where
//   q^2 = (G2/2 - L^2/16) / (1 + L/4)^2, G2 = |grad J|^2 / J^2, L = lap J / J.
// srad_update: J += lambda/4 * (cN dN + cS dS + cW dW + cE dE), with cN = cW = c[here],
//   cS = c[south], cE = c[east].
extern "C" __global__ void srad_coef(const float* J, float* c, float* dN, float* dS, float* dW, float* dE, int rows,
                                     int cols, float q0sqr)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    int idx = y * cols + x;
    float jc = J[idx];
    float n = J[max(y - 1, 0) * cols + x] - jc;
    float s = J[min(y + 1, rows - 1) * cols + x] - jc;
    float w = J[y * cols + max(x - 1, 0)] - jc;
    float e = J[y * cols + min(x + 1, cols - 1)] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - 0.0625f * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float cc = 1.0f / (1.0f + den);
    if (cc < 0.0f) cc = 0.0f;
    else if (cc > 1.0f) cc = 1.0f;
    c[idx] = cc;
    dN[idx] = n;
    dS[idx] = s;
    dW[idx] = w;
    dE[idx] = e;
}

extern "C" __global__ void srad_update(float* J, const float* c, const float* dN, const float* dS, const float* dW,
                                       const float* dE, int rows, int cols, float lambda)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    int idx = y * cols + x;
    float cn = c[idx];
    float cs = c[min(y + 1, rows - 1) * cols + x];
    float cw = c[idx];
    float ce = c[y * cols + min(x + 1, cols - 1)];
    float d = cn * dN[idx] + cs * dS[idx] + cw * dW[idx] + ce * dE[idx];
    J[idx] = J[idx] + 0.25f * lambda * d;
}
