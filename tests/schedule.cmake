# How `ctest -j` schedules the suite; scripts/test.sh runs it with twice as many
# slots as CPUs. Several tests spend most of their time waiting, on a timeout
# they configured short (fault.timeouts), a refresh (integration.fleet) or a
# server's answers, and use little CPU; the rest keep a CPU busy. With a slot
# per CPU, two waiting tests would hold both slots while the CPUs idle; with
# twice as many, the waiting tests run beside the busy ones.
#
# COST: the order they start in, highest first (ctest has no timings of its own
# in a fresh build tree; after a run it uses the times it measured). The tests
# that wait longest start first, then the busy ones, longest first, so that no
# long test starts last and the short ones fill in around them.
# PROCESSORS: slots a test takes, 2 for one that keeps two CPUs busy (a build,
# a browser, a server with its two worker threads driven flat out), so two of
# those at most run at once.
#
# Nothing here changes what a test checks, and none needs the machine to itself:
# the few wall-clock checks are lower bounds (a timeout does not fire early),
# which load cannot break, or bounds for a hang far above the time checked; what
# the fault and soak tests measure is their own server's (its CPU time, resident
# memory and descriptors from /proc, its sockets by port), which tests beside
# them do not change. scripts/repeat-tests.sh runs the integration, fault and
# soak tests beside busy loops to show it.
function(aa_schedule name cost processors)
    if(TEST ${name})
        set_tests_properties(${name} PROPERTIES COST ${cost} PROCESSORS ${processors})
    endif()
endfunction()

# Waiting: wall time far above their CPU time.
aa_schedule(integration.fleet 200 1)
aa_schedule(fault.timeouts 190 1)
# Busy, longest first.
aa_schedule(readme 150 2)
aa_schedule(fault.memory 140 2)
aa_schedule(playground.browser 130 2)
aa_schedule(soak.short 100 2)
aa_schedule(contract.client 90 1)
aa_schedule(contract.lint 80 1)
aa_schedule(cli 70 1)
aa_schedule(deploy.k8s_validate 50 1)
