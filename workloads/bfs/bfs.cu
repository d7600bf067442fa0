// Level-synchronous breadth-first search over a CSR graph (one thread per vertex).
// bfs_init:   frontier = {source}, cost = -1 except cost[source] = 0.
// bfs_expand: frontier vertices leave the frontier and label unvisited neighbours with
//             cost + 1, marking them in `updating` (all writers of a level write the same cost).
// bfs_commit: newly reached vertices join the frontier and the visited set; any such vertex sets
//             changed[level] (atomicExch). bfs_expand of level L returns at once if
//             changed[L-1] == 0, so launches beyond the graph depth do no work.
extern "C" __global__ void bfs_init(unsigned char* mask, unsigned char* updating, unsigned char* visited, int* cost,
                                    int n, int source)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char is_src = (i == source) ? 1 : 0;
    mask[i] = is_src;
    updating[i] = 0;
    visited[i] = is_src;
    cost[i] = is_src ? 0 : -1;
}

extern "C" __global__ void bfs_expand(const int* row_ptr, const int* col, unsigned char* mask, unsigned char* updating,
                                      const unsigned char* visited, int* cost, const int* changed, int n, int level)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (level > 0 && changed[level - 1] == 0) return;
    if (!mask[i]) return;
    mask[i] = 0;
    int c = cost[i] + 1;
    int end = __ldg(&row_ptr[i + 1]);
    for (int e = __ldg(&row_ptr[i]); e < end; ++e) {
        int nb = __ldg(&col[e]);
        if (!visited[nb]) {
            cost[nb] = c;
            updating[nb] = 1;
        }
    }
}

extern "C" __global__ void bfs_commit(unsigned char* mask, unsigned char* updating, unsigned char* visited, int* changed,
                                      int n, int level)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!updating[i]) return;
    mask[i] = 1;
    visited[i] = 1;
    updating[i] = 0;
    atomicExch(&changed[level], 1);
}
