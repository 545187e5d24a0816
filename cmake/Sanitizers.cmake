# ASan + UBSan for the whole build when SIM_SANITIZE is on (the `asan` preset); UB aborts the test.
if(SIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
# The fuzz preset instruments everything for libFuzzer's coverage, plus ASan + UBSan.
if(SIM_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
