#pragma once
// SIM_ASSERT checks internal invariants (never user input). It is live in Debug and sanitizer
// builds and compiles to nothing in Release, like DuckDB's D_ASSERT.

#include <cstdio>
#include <cstdlib>

#ifndef NDEBUG
#define SIM_ASSERT(cond)                                                                         \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "%s:%d: internal invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                              \
    }                                                                                            \
  } while (false)
#else
#define SIM_ASSERT(cond) \
  do {                   \
  } while (false)
#endif
