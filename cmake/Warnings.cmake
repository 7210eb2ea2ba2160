# Warnings are errors everywhere: one let through is a bug found later, by someone else.
set(AA_WARNINGS
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wundef
    -Wcast-qual -Wwrite-strings -Wvla -Werror)

function(aa_target_warnings target)
    target_compile_options(${target} PRIVATE ${AA_WARNINGS})
endfunction()
