// Mandelbrot escape-time iteration counts, one thread per pixel; a data-dependent while loop
// (heavy divergence at the set boundary). All arithmetic uses explicitly rounded intrinsics
// (__fmul_rn, __fadd_rn, __fsub_rn) so the compiler cannot contract to FMA and a plain f32
// reference reproduces every count exactly.
extern "C" __global__ void mandelbrot(int* iters, int width, int height, float x0, float y0, float dx, float dy,
                                      int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = __fadd_rn(x0, __fmul_rn((float)px, dx));
    float ci = __fadd_rn(y0, __fmul_rn((float)py, dy));
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter) {
        float zr2 = __fmul_rn(zr, zr);
        float zi2 = __fmul_rn(zi, zi);
        if (__fadd_rn(zr2, zi2) > 4.0f) break;
        float nzi = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, zr), zi), ci);
        zr = __fadd_rn(__fsub_rn(zr2, zi2), cr);
        zi = nzi;
        ++it;
    }
    iters[py * width + px] = it;
}
