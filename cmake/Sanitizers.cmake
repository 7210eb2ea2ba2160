# -DAA_SANITIZE=ON builds everything with AddressSanitizer (LeakSanitizer included)
# and UndefinedBehaviorSanitizer; any report aborts the process, so a test fails.
option(AA_SANITIZE "Build with ASan + UBSan" OFF)
option(AA_COVERAGE "Build with gcov instrumentation" OFF)
option(AA_FUZZ "Build libFuzzer harnesses (needs clang)" OFF)

if(AA_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
if(AA_COVERAGE)
    # atomic counters: the server and the probe worker are multi-threaded
    add_compile_options(--coverage -O0 -fprofile-update=atomic)
    add_link_options(--coverage)
endif()
