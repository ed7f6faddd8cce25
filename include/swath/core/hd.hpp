#pragma once
// SWATH_HD marks functions that both the CPU backend (plain g++) and CUDA kernels call: element
// functions, references, schedules. Under g++ it expands to nothing. SWATH_UNROLL asks the device
// compiler to unroll the loop that follows (host compilers decide for themselves).
#if defined(__CUDACC__)
#define SWATH_HD __host__ __device__
#define SWATH_HD_INLINE __host__ __device__ __forceinline__
#else
#define SWATH_HD
#define SWATH_HD_INLINE inline
#endif
#if defined(__CUDA_ARCH__)
#define SWATH_UNROLL _Pragma("unroll")
#else
#define SWATH_UNROLL
#endif
