# -DAA_SANITIZE=ON builds everything with AddressSanitizer (LeakSanitizer included)
# and UndefinedBehaviorSanitizer; any report aborts the process, so a test fails.
option(AA_SANITIZE "Build with ASan + UBSan" OFF)
option(AA_COVERAGE "Build with gcov instrumentation" OFF)
option(AA_FUZZ "Build libFuzzer harnesses (needs clang)" OFF)

if(AA_SANITIZE)
    # -O1 in a Debug build: AddressSanitizer's own advice for reasonable speed
    # (https://clang.llvm.org/docs/AddressSanitizer.html, "Usage"). At -O0 the
    # sanitized ctest took 798 s against 640 s at -O1, in the same minutes on a
    # loaded machine (fault.memory 71 s of CPU against 50 s, soak.short 61 s of
    # wall clock against 31 s).
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                        -fno-omit-frame-pointer $<$<CONFIG:Debug>:-O1>)
    add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
if(AA_COVERAGE)
    # atomic counters: the server and the probe worker are multi-threaded
    add_compile_options(--coverage -O0 -fprofile-update=atomic)
    add_link_options(--coverage)
endif()
