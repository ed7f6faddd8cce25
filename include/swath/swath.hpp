#pragma once
// swath, the library: one include for every entry point.
//   swath::sgemm                  C = alpha op(A) op(B) + beta C, float32        (swath/gemm.hpp)
//   swath::stencil::apply/iterate 2D and 3D stencils, float and double          (swath/stencil.hpp)
//   swath::histogram::count       byte and binned histograms                    (swath/histogram.hpp)
//   swath::vector_add/matrix_add  elementwise adds                              (swath/elementwise.hpp)
//   swath::raytracer::render      spheres through a BVH                         (swath/raytracer.hpp)
// Device memory runs on the caller's stream, asynchronously; host memory runs on the CPU's threads.
// Errors are exceptions derived from swath::error (swath/core/error.hpp). docs/library.md has the rules.
// The grid over several GPUs or processes is a separate target, swath::distributed (swath/distributed.hpp).
#include "swath/core/error.hpp"
#include "swath/core/stream.hpp"
#include "swath/elementwise.hpp"
#include "swath/gemm.hpp"
#include "swath/histogram.hpp"
#include "swath/raytracer.hpp"
#include "swath/stencil.hpp"
#include "swath/version.hpp"
