# cmake/NoTests.cmake -- what `ctest` says in a build configured without its
# tests (-DAA_BUILD_TESTS=OFF, as scripts/run.sh does to build only the server),
# rather than "No tests were found!!!" and success: where the tests are, before
# the run (SAY=1, from the build's CTestCustom.cmake), and as the one test, which
# fails.
#   cmake -DDIR=<build dir> [-DSAY=1] -P cmake/NoTests.cmake
set(text
    "${DIR} was configured with -DAA_BUILD_TESTS=OFF (scripts/run.sh builds only the server), "
    "so it has no tests. scripts/test.sh installs what the tests need, builds them in build-test/ "
    "(and build-asan/) and runs them, after which `ctest --test-dir build-test -R REGEX` "
    "runs some again. "
    "Or configure this directory with them: cmake -S . -B ${DIR} -DAA_BUILD_TESTS=ON")
string(CONCAT text ${text})
if(SAY)
    message(NOTICE "${text}")
else()
    message(FATAL_ERROR "${text}")
endif()
