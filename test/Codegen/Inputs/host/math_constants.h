// The constants of CUDA's math_constants.h that Solder's device headers use,
// for the host shim (cuda_host_shim.h).
#ifndef SOLDER_TEST_MATH_CONSTANTS_H
#define SOLDER_TEST_MATH_CONSTANTS_H
#include <cmath>
#define CUDART_NAN_F NAN
#define CUDART_INF_F INFINITY
#endif
