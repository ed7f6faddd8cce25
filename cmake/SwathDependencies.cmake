# find_package wrappers that stop configure with the Debian package to install.

# swath_require_package(<find name> <what> <debian package> [find_package args...])
macro(swath_require_package name what debian)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "swath needs ${what}, which CMake could not find.\n"
      "On Debian or Ubuntu install it with:  sudo apt-get install ${debian}\n"
      "(or run scripts/deps as root, which installs everything swath builds with)")
  endif()
endmacro()

macro(swath_require_cuda_toolkit)
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublas)
    message(FATAL_ERROR "swath found nvcc but not the CUDA toolkit's libraries (cudart, cuBLAS). "
                        "Install the full CUDA toolkit, or configure with -DSWATH_ENABLE_CUDA=OFF.")
  endif()
  # CUB and Thrust ship with the toolkit as CCCL.
  find_package(CCCL CONFIG QUIET HINTS ${CUDAToolkit_LIBRARY_DIR}/cmake ${CUDAToolkit_LIBRARY_ROOT}/lib64/cmake)
  if(NOT CCCL_FOUND)
    message(FATAL_ERROR "swath found nvcc but not CCCL (CUB, Thrust) in the CUDA toolkit at ${CUDAToolkit_LIBRARY_ROOT}.")
  endif()
endmacro()
