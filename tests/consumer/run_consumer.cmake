# ctest's consumer check: cmake -DMODE=find_package|add_subdirectory -DSWATH_SOURCE=... -DSWATH_BUILD=...
# -DWORK=... -DGENERATOR=... -DCUDA=ON|OFF -P run_consumer.cmake
#   find_package:     installs the swath build at SWATH_BUILD into WORK/prefix, then configures, builds
#                     and runs tests/consumer against it with CMAKE_PREFIX_PATH.
#   add_subdirectory: configures, builds and runs tests/consumer with swath's source added beside it
#                     (the library alone: CPU backend, to keep the test's build short).
cmake_minimum_required(VERSION 3.25)
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer (${MODE}): `${ARGN}` failed (${status}):\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
set(consumer ${SWATH_SOURCE}/tests/consumer)
if(MODE STREQUAL "find_package")
  step(${CMAKE_COMMAND} --install ${SWATH_BUILD} --prefix ${WORK}/prefix)
  step(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
  step(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
       -DSWATH_SOURCE_DIR=${SWATH_SOURCE} -DSWATH_ENABLE_CUDA=OFF -DSWATH_NATIVE=OFF)
endif()
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
message(STATUS "${last_output}")
