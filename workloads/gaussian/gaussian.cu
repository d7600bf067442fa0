// Gaussian elimination (forward phase) of A x = b, n x n row-major, no pivoting; the matrix is
// made diagonally dominant first. For t = 0 .. n-2 the host-side sequence launches
// gauss_fan1 (multipliers m[i][t] = a[i][t] / a[t][t], i > t) then gauss_fan2
// (a[i][j] -= m[i][t] a[t][j] for i > t, j >= t, and b[i] -= m[i][t] b[t]).
extern "C" __global__ void gauss_prep(float* a, int n, float shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i * n + i] += shift;
}

extern "C" __global__ void gauss_fan1(const float* a, float* m, int n, int t)
{
    int i = t + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i * n + t] = a[i * n + t] / a[t * n + t];
}

extern "C" __global__ void gauss_fan2(float* a, float* b, const float* m, int n, int t)
{
    int i = t + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    int j = t + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    float mi = m[i * n + t];
    a[i * n + j] -= mi * a[t * n + j];
    if (j == t) b[i] -= mi * b[t];
}
