# sim_warnings: an INTERFACE target that every kaisim target links, so warning policy lives in one place.
add_library(sim_warnings INTERFACE)
target_compile_options(sim_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wdouble-promotion
  -Wimplicit-fallthrough
  # GCC 12 reports false -Wrestrict overlaps on "literal" + std::string (GCC bug 105651).
  $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>
  # With -fsanitize GCC's flow analysis reports uninitialised reads that are not there (the GCC manual
  # says so under -fsanitize=address; libstdc++'s regex trips it at -O2). The Release build keeps the warning.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<BOOL:${SIM_SANITIZE}>>:-Wno-maybe-uninitialized>)
if(SIM_WERROR)
  target_compile_options(sim_warnings INTERFACE -Werror)
endif()

# Fair-share results must equal KAI's bit for bit: plain IEEE binary64, no fused multiply-add
# (KAI's amd64 images do not fuse either; kai-fairshare.md section 2.4).
add_library(sim_fp_exact INTERFACE)
target_compile_options(sim_fp_exact INTERFACE -ffp-contract=off -fno-fast-math)
