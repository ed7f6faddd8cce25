// Step 08 (CUDA): matrix add on a 2D grid (seed 001, item 3), row-major with a leading dimension.
// Blocks of 32 × 8 threads: a warp covers 32 consecutive columns of one row (128 coalesced bytes per
// operand); blocks tile the matrix, with partial blocks at the right and bottom edges masked. Rows
// beyond the 65535-block limit of gridDim.y are covered by striding in y. Padding between rows is never
// touched. Expected: like step 02 (4-byte accesses, one element per thread), a little under it when
// the row length is not a multiple of 32 (the last warp of each row is partly idle). Measured on an
// H200: 62% of the copy ceiling, 0.61x cuBLAS geam; step 09 fixes it.
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

constexpr int block_x = 32;
constexpr int block_y = 8;

__global__ void matadd_2d_kernel(const float* a, const float* b, float* c, std::int64_t rows, std::int64_t cols,
                                 std::int64_t ld) {
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * block_x + threadIdx.x;
  if (col >= cols) return;
  const std::int64_t row_stride = static_cast<std::int64_t>(gridDim.y) * block_y;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * block_y + threadIdx.y; row < rows; row += row_stride) {
    const std::int64_t i = row * ld + col;
    c[i] = a[i] + b[i];
  }
}

}  // namespace

void matadd_2d(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 threads(block_x, block_y);
  const dim3 blocks(blocks_for(p.cols, block_x), std::min<unsigned>(blocks_for(p.rows, block_y), 65535u));
  matadd_2d_kernel<<<blocks, threads, 0, stream_of(launch)>>>(x.a, x.b, x.c, p.rows, p.cols, p.ld);
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
