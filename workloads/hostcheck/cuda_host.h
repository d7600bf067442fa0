// cuda_host.h: a minimal host-side CUDA emulation used ONLY to cross-check the workload kernels
// against the Rust reference implementations (workloads/hostcheck/run.py). It is not part of the
// simulator and says nothing about GPU timing.
//
// Model: blocks run one after another; the threads of a block run as real OS threads, so
// __syncthreads is a std::barrier over the block and warp shuffles exchange through a per-warp
// slot array between two warp barriers. __shared__ variables become function-local statics
// (shared by the block's threads; blocks never overlap). Atomics use the GCC __atomic builtins.
// Compile with g++ -std=c++20 -O1 -ffp-contract=off -pthread.
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

struct WarpCtx {
    std::unique_ptr<std::barrier<>> bar;
    float fslot[32];
    int islot[32];
};
struct BlockCtx {
    std::unique_ptr<std::barrier<>> bar;
    std::vector<std::unique_ptr<WarpCtx>> warps;
};

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local BlockCtx* tl_block = nullptr;
inline thread_local WarpCtx* tl_warp = nullptr;
inline thread_local unsigned tl_lane = 0;

// The nn `_lreg` / `_lskip` kernels' annotation, `asm volatile(".pragma \"regwatt.lreg ...\";")`:
// an assembler macro named `.pragma` that expands to nothing, so the host assembler accepts it.
asm(".macro .pragma args:vararg\n.endm");

#define __global__
#define __device__ inline
#define __forceinline__
#define __shared__ static
#define __restrict__

inline void __syncthreads() { tl_block->bar->arrive_and_wait(); }

template <class T>
inline T __ldg(const T* p) { return *p; }

inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __expf(float x) { return std::exp(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }

template <class T>
inline T shfl_exchange(T v, unsigned src, T* slots) {
    slots[tl_lane] = v;
    tl_warp->bar->arrive_and_wait();
    T r = (src < 32) ? slots[src] : v;
    tl_warp->bar->arrive_and_wait();
    return r;
}
inline float __shfl_down_sync(unsigned, float v, int off) {
    return shfl_exchange(v, tl_lane + off, tl_warp->fslot);
}
inline float __shfl_xor_sync(unsigned, float v, int m) {
    return shfl_exchange(v, tl_lane ^ m, tl_warp->fslot);
}

inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline float atomicAdd(float* p, float v) {
    unsigned* u = reinterpret_cast<unsigned*>(p);
    unsigned old = __atomic_load_n(u, __ATOMIC_SEQ_CST), nw;
    do {
        float f;
        std::memcpy(&f, &old, 4);
        f += v;
        std::memcpy(&nw, &f, 4);
    } while (!__atomic_compare_exchange_n(u, &old, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    float r;
    std::memcpy(&r, &old, 4);
    return r;
}
inline int atomicCAS(int* p, int cmp, int val) {
    __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
inline int atomicExch(int* p, int v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicMin(unsigned* p, unsigned v) {
    unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
inline unsigned atomicMax(unsigned* p, unsigned v) {
    unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}

// A device pointer that converts to any pointer type (launch arguments).
struct DevPtr {
    void* p;
    template <class T>
    operator T*() const { return static_cast<T*>(p); }
};

// Runs `body` for every thread of every block.
inline void launch(dim3 grid, dim3 block, const std::function<void()>& body) {
    gridDim = grid;
    blockDim = block;
    unsigned nthreads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                BlockCtx ctx;
                ctx.bar = std::make_unique<std::barrier<>>(nthreads);
                for (unsigned w = 0; w < (nthreads + 31) / 32; ++w) {
                    auto wc = std::make_unique<WarpCtx>();
                    unsigned lanes = std::min(32u, nthreads - 32 * w);
                    wc->bar = std::make_unique<std::barrier<>>(lanes);
                    ctx.warps.push_back(std::move(wc));
                }
                std::vector<std::thread> threads;
                threads.reserve(nthreads);
                for (unsigned t = 0; t < nthreads; ++t) {
                    threads.emplace_back([&, t, bx, by, bz] {
                        threadIdx = dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        blockIdx = dim3{bx, by, bz};
                        tl_block = &ctx;
                        tl_warp = ctx.warps[t / 32].get();
                        tl_lane = t % 32;
                        body();
                        tl_warp->bar->arrive_and_drop();
                        ctx.bar->arrive_and_drop();
                    });
                }
                for (auto& th : threads) th.join();
            }
}
